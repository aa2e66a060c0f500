// bikebeacon dashboard: plain JavaScript against the server's /v1 API, no build step.
// Every piece of server data reaches the page through textContent, never as HTML.
"use strict";

const COLOURS = ["black", "white", "grey", "silver", "red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "other"];

const PUSH_KEY = "bikebeacon.pushSubscription";
/** The service worker's cache of the owner's data (sw.js): emptied on log-out. */
const DATA_CACHE = "bikebeacon-data";

// The session is an HttpOnly cookie this script cannot read; `bb_csrf` (readable) goes back in X-CSRF-Token.
const state = { signedIn: false, email: "", operator: false, view: "bikes",
  bikes: [], selected: null, sightings: [], events: null, config: null, map: null,
  /** The bike whose new tag needs a police report's reference to be marked missing, and the server's words. */
  referenceNeeded: null };

const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

/** An error the server or the form reported, tied to the field it is about when known. */
class FieldError extends Error {
  constructor(message, field, status, code = "") { super(message); this.field = field; this.status = status; this.code = code; }
}

function csrfToken() {
  const match = /(?:^|;\s*)bb_csrf=([^;]*)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : "";
}

/** Calls the API; a refusal becomes a FieldError naming the field the server's message quotes ('name', …). */
async function api(method, path, body, { raw = false } = {}) {
  const headers = {};
  if (method !== "GET" && method !== "HEAD") headers["X-CSRF-Token"] = csrfToken();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new FieldError("Cannot reach the server: check your connection and try again.");
  }
  if (response.status === 401 && state.signedIn && path !== "/v1/sessions") {
    logOut("Your session has ended: log in again.");
    throw new FieldError("Your session has ended: log in again.", null, 401);
  }
  if (!response.ok) {
    let message = `The server answered ${response.status}.`, code = "";
    try { const json = await response.json(); message = json.message || message; code = json.error || ""; } catch (_) {}
    const quoted = /'([A-Za-z]+)'/.exec(message);
    let field = quoted ? quoted[1] : null;
    if (code === "email_taken") field = "email";
    if (code === "invalid_credentials") field = "password";
    throw new FieldError(message, field, response.status, code);
  }
  showOffline(response.headers.get("X-Bikebeacon-Cached-At"));
  if (raw) return response;
  if (response.status === 204) return null;
  return response.json();
}

// ---- form errors: shown right under the field they are about ----

function clearErrors(form) {
  for (const p of form.querySelectorAll(".error")) p.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) { input.removeAttribute("aria-invalid"); input.removeAttribute("aria-describedby"); }
}

function showError(form, prefix, error) {
  const field = error.field;
  const slot = field && $(`${prefix}-${field}-error`);
  if (slot) {
    slot.textContent = error.message;
    const input = $(`${prefix}-${field}`);
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", slot.id);
      input.focus();
    }
  } else {
    $(`${prefix}-form-error`).textContent = error.message;
  }
}

// ---- signing in ----

async function logIn(email, password) {
  await api("POST", "/v1/sessions", { email, password, cookie: true });
  state.signedIn = true; state.email = email.trim().toLowerCase();
  await showApp();
}

function logOut(message) {
  if (state.signedIn) fetch("/v1/sessions", { method: "DELETE", headers: { "X-CSRF-Token": csrfToken() } }).catch(() => {});
  state.signedIn = false; state.bikes = []; state.selected = null;
  localStorage.removeItem(PUSH_KEY);
  if (window.caches) caches.delete(DATA_CACHE).catch(() => {});
  history.replaceState(null, "", "/");
  if (state.events) { state.events.abort(); state.events = null; }
  showView("bikes");
  state.operator = false; $("nav-network").hidden = true;
  $("app").hidden = true; $("who").hidden = true; $("views").hidden = true; $("auth").hidden = false;
  if (message) $("login-form-error").textContent = message;
}

function credentials(form, prefix) {
  const email = form.email.value.trim(), password = form.password.value;
  if (!email.includes("@")) throw new FieldError("Enter your email address.", "email");
  if (prefix === "signup" && password.length < 8) throw new FieldError("Use a password of 8 characters or more.", "password");
  if (!password) throw new FieldError("Enter your password.", "password");
  return { email, password };
}

function wireAuth() {
  $("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget; clearErrors(form);
    try { const c = credentials(form, "login"); await logIn(c.email, c.password); form.reset(); }
    catch (error) { showError(form, "login", error); }
  });
  $("signup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget; clearErrors(form);
    try {
      const c = credentials(form, "signup");
      await api("POST", "/v1/accounts", c);
      await logIn(c.email, c.password);
      form.reset();
    } catch (error) { showError(form, "signup", error); }
  });
  $("logout").addEventListener("click", () => logOut());
  $("forgot-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget; clearErrors(form); $("forgot-sent").textContent = "";
    try {
      const email = form.email.value.trim();
      if (!email.includes("@")) throw new FieldError("Enter your email address.", "email");
      await api("POST", "/v1/password-reset", { email }, { raw: true });
      $("forgot-sent").textContent = "If an account uses this address, a link to choose a new password is on its way; it works once, for 30 minutes.";
    } catch (error) { showError(form, "forgot", error); }
  });
  $("reset-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget; clearErrors(form);
    try {
      const password = form.password.value;
      if (password.length < 8) throw new FieldError("Use a password of 8 characters or more.", "password");
      await api("POST", "/v1/password-reset/confirm", { token: form.dataset.token, password });
      form.reset(); form.hidden = true;
      history.replaceState(null, "", "/");
      $("login-form-error").textContent = "Password changed: log in with the new one.";
    } catch (error) { showError(form, "reset", error); }
  });
}

/** The links in account emails: `/#password-reset=TOKEN` opens the new-password form, `/#verify-email=TOKEN` confirms at once. */
async function followAccountLink() {
  const link = new URLSearchParams(location.hash.slice(1));
  const reset = link.get("password-reset"), verify = link.get("verify-email");
  if (reset) {
    $("reset-form").dataset.token = reset;
    $("reset-form").hidden = false;
    $("reset-password").focus();
  } else if (verify) {
    history.replaceState(null, "", "/");
    try {
      await api("POST", "/v1/email-verification/confirm", { token: verify });
      $("login-form-error").textContent = "Your address is confirmed: log in.";
    } catch (error) { $("login-form-error").textContent = error.message; }
  }
}

// ---- bikes ----

async function loadBikes() {
  $("bikes-error").textContent = "";
  try {
    state.bikes = (await api("GET", "/v1/bikes")).bikes;
    renderBikes();
  } catch (error) { $("bikes-error").textContent = error.message; }
}

function beaconText(b) { return `${b.uuid}:${b.major}:${b.minor}`; }

function renderBikes() {
  const list = $("bikes");
  list.replaceChildren(...state.bikes.map((bike) => {
    const description = [bike.make, bike.model].filter(Boolean).join(" ");
    const colour = bike.colour ? el("span", {}, el("span", { class: "swatch" + (COLOURS.includes(bike.colour) ? ` c-${bike.colour}` : ""), "aria-hidden": "true" }), bike.colour) : null;
    const status = bike.underReview ? "UNDER REVIEW" : bike.missing ? "MISSING" : "OK";
    return el("li", { class: "bike" + (bike.missing ? " missing" : "") + (state.selected === bike.id ? " selected" : ""), "data-bike": bike.id },
      el("div", { class: "bike-head" },
        el("span", { class: "bike-name", text: bike.name }),
        el("span", { class: "badge" + (bike.missing ? " missing" : "") + (bike.underReview ? " review" : ""), "data-status": status, text: status })),
      el("p", { class: "bike-meta" }, colour, colour && description ? " · " : "", description,
        bike.frameNumber ? ` · frame ${bike.frameNumber}` : ""),
      el("p", { class: "beacon", text: beaconText(bike.beacon) }),
      bike.missing && bike.missingUntil ? el("p", { class: "bike-meta", "data-missing-until": bike.missingUntil,
        text: `On the missing list until ${new Date(bike.missingUntil).toLocaleDateString()}; renew it while the bike is still missing` }) : null,
      bike.underReview ? el("p", { class: "bike-meta", "data-under-review": "",
        text: "Under review: someone reported this tag hidden on them. The bike stays on the missing list; new sightings are kept, sealed, and shown to you (marked held for review) if the network's operator releases the report. Share links are paused meanwhile; you were told how to reach the operator." }) : null,
      el("div", { class: "actions" },
        el("button", { type: "button", class: bike.missing ? "secondary" : "danger", "data-action": bike.missing ? "recovered" : "missing",
          "aria-label": `${bike.missing ? "Mark recovered" : "Mark missing"}: ${bike.name}`, text: bike.missing ? "Mark recovered" : "Mark missing",
          onclick: () => setMissing(bike, !bike.missing) }),
        bike.missing ? el("button", { type: "button", class: "secondary", "data-action": "renew", "aria-label": `Renew the missing report: ${bike.name}`,
          text: "Renew", onclick: () => renewMissing(bike) }) : null,
        el("button", { type: "button", class: "secondary", "data-action": "sightings", "aria-label": `Sightings of ${bike.name}`, text: "Sightings",
          onclick: () => selectBike(bike.id) }),
        el("button", { type: "button", class: "secondary", "data-action": "edit", "aria-label": `Edit ${bike.name}`, text: "Edit",
          onclick: () => editBike(bike) })),
      state.referenceNeeded && state.referenceNeeded.bike === bike.id ? referenceForm(bike, state.referenceNeeded.message) : null);
  }));
  $("bikes-empty").hidden = state.bikes.length > 0;
}

async function setMissing(bike, missing, body) {
  $("bikes-error").textContent = "";
  try {
    const updated = await api("POST", `/v1/bikes/${encodeURIComponent(bike.id)}/${missing ? "missing" : "recovered"}`, body);
    state.bikes = state.bikes.map((b) => (b.id === updated.id ? updated : b));
    state.referenceNeeded = null;
    renderBikes();
    if (missing) { openLostMode(updated); return; }
    showRecovered(bike);
    const again = document.querySelector(`[data-bike="${CSS.escape(updated.id)}"] [data-action="${missing ? "recovered" : "missing"}"]`);
    if (again) again.focus();
  } catch (error) {
    if (error.code === "police_reference_required") {
      // A tag put on the bike less than a day ago: the server asks for the police report's reference.
      state.referenceNeeded = { bike: bike.id, message: error.message };
      renderBikes();
      $("reference-policeReference").focus();
      return;
    }
    if (body && error.field === "policeReference") { showError($("reference-form"), "reference", error); return; }
    $("bikes-error").textContent = error.message;
  }
}

/** The police report's reference, asked for when the server holds a new tag (`police_reference_required`). */
function referenceForm(bike, message) {
  const input = el("input", { id: "reference-policeReference", name: "policeReference", autocomplete: "off", required: "", maxlength: "100" });
  const form = el("form", { id: "reference-form", class: "reference", "data-reference-for": bike.id, novalidate: "" },
    el("p", { class: "hint", id: "reference-why", text: message }),
    el("label", { for: "reference-policeReference", text: "Police report reference" }),
    input,
    el("p", { class: "error", id: "reference-policeReference-error", role: "alert" }),
    el("p", { class: "error", id: "reference-form-error", role: "alert" }),
    el("button", { type: "submit", class: "danger", text: "Mark missing with this reference" }));
  input.setAttribute("aria-describedby", "reference-why");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearErrors(form);
    const reference = input.value.trim();
    if (!reference) { showError(form, "reference", new FieldError("Give the reference on your police report.", "policeReference")); return; }
    setMissing(bike, true, { policeReference: reference });
  });
  return form;
}

/** Another period on the missing list, from now (it ends by itself, so no tag is followed for good). */
async function renewMissing(bike) {
  $("bikes-error").textContent = "";
  try {
    const updated = await api("POST", `/v1/bikes/${encodeURIComponent(bike.id)}/missing`);
    state.bikes = state.bikes.map((b) => (b.id === updated.id ? updated : b));
    renderBikes();
  } catch (error) { $("bikes-error").textContent = error.message; }
}

function editBike(bike) {
  const form = $("bike-form"); clearErrors(form);
  $("bike-id").value = bike.id;
  for (const field of ["name", "make", "model", "colour", "frameNumber", "recoveryContact", "notes"]) form[field].value = bike[field] || "";
  form.uuid.value = bike.beacon.uuid; form.major.value = bike.beacon.major; form.minor.value = bike.beacon.minor;
  $("bike-form-title").textContent = `Edit ${bike.name}`;
  $("bike-submit").textContent = "Save changes";
  $("bike-cancel").hidden = false;
  $("bike-name").focus();
}

function resetBikeForm() {
  const form = $("bike-form"); form.reset(); clearErrors(form);
  $("bike-id").value = "";
  $("bike-form-title").textContent = "Add a bike";
  $("bike-submit").textContent = "Add bike";
  $("bike-cancel").hidden = true;
}

function bikeFields(form) {
  const name = form.name.value.trim();
  if (!name) throw new FieldError("Give the bike a name.", "name");
  const uuid = form.uuid.value.trim().toUpperCase();
  if (!/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/.test(uuid))
    throw new FieldError("Write the UUID as 8-4-4-4-12 hexadecimal digits, as the tag's app shows it.", "uuid");
  const number = (field, label) => {
    const text = form[field].value.trim();
    if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new FieldError(`${label} is a whole number from 0 to 65535.`, field);
    return Number(text);
  };
  const major = number("major", "Major"), minor = number("minor", "Minor");
  return { name, make: form.make.value.trim(), model: form.model.value.trim(), colour: form.colour.value,
    frameNumber: form.frameNumber.value.trim(), recoveryContact: form.recoveryContact.value.trim(), notes: form.notes.value,
    beacon: { uuid, major, minor } };
}

function wireBikeForm() {
  $("bike-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget; clearErrors(form);
    try {
      const fields = bikeFields(form);
      const id = $("bike-id").value;
      const bike = id ? await api("PATCH", `/v1/bikes/${encodeURIComponent(id)}`, fields) : await api("POST", "/v1/bikes", fields);
      state.bikes = id ? state.bikes.map((b) => (b.id === bike.id ? bike : b)) : [...state.bikes, bike];
      renderBikes(); resetBikeForm();
    } catch (error) {
      if (error.status === 409 && /beacon/i.test(error.message)) error.field = "beacon";
      showError(form, "bike", error);
    }
  });
  $("bike-cancel").addEventListener("click", resetBikeForm);
  $("bike-paste-read").addEventListener("click", readPastedTag);
  $("bike-paste").addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); readPastedTag(); } });
}

/** The server reads the paste (one parser, the CLI's too) and the beacon fields are filled from its answer. */
async function readPastedTag() {
  const form = $("bike-form"); clearErrors(form); $("bike-paste-status").textContent = "";
  const text = $("bike-paste").value;
  try {
    if (!text.trim()) throw new FieldError("Paste what the tag's app or label shows first.", "paste");
    const beacon = await api("POST", "/v1/beacons/parse", { text });
    form.uuid.value = beacon.uuid; form.major.value = beacon.major; form.minor.value = beacon.minor;
    $("bike-paste-status").textContent = `Read tag ${beacon.uuid}, major ${beacon.major}, minor ${beacon.minor}.`;
  } catch (error) {
    error.field = "paste";
    showError(form, "bike", error);
  }
}

// ---- sightings: a list and a map of sentinel places ----

async function selectBike(id) {
  state.selected = id;
  history.replaceState(null, "", `/?bike=${encodeURIComponent(id)}`);
  if (state.map) { state.map.remove(); state.map = null; } // a fresh map per bike: tiles are tried again
  renderBikes();
  const bike = state.bikes.find((b) => b.id === id);
  $("sightings-hint").hidden = true; $("sightings-panel").hidden = false;
  $("sightings-bike").textContent = bike ? bike.name : "";
  $("bike-contact").textContent = bike && bike.recoveryContact ? `Breakdown or recovery: ${bike.recoveryContact}` : "";
  if (bike && bike.missing) openLostMode(bike, { focus: false });
  await Promise.all([loadSightings(), loadDates()]);
  $("sightings-bike").setAttribute("tabindex", "-1"); $("sightings-bike").focus();
}

async function loadSightings(freshId) {
  if (!state.selected) return;
  $("sightings-error").textContent = "";
  try {
    const page = await api("GET", `/v1/bikes/${encodeURIComponent(state.selected)}/sightings?limit=200`);
    state.sightings = page.sightings;
    state.estimate = page.estimate || null;
    renderSightings(freshId);
  } catch (error) { $("sightings-error").textContent = error.message; }
  loadCoverage();
}

/** Who listens around the last place: a line of its own, which never keeps the sightings from showing. */
async function loadCoverage() {
  const id = state.selected;
  try {
    const coverage = await api("GET", `/v1/bikes/${encodeURIComponent(id)}/coverage`);
    if (id === state.selected) $("coverage").textContent = coverageText(coverage);
  } catch (error) {
    if (id === state.selected) $("coverage").textContent = `Coverage could not be loaded: ${error.message}`;
  }
}

function when(text) {
  const date = new Date(text);
  return isNaN(date) ? text : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

function renderSightings(freshId) {
  const rows = state.sightings.map((s) => el("tr", { class: s.id === freshId ? "fresh" : "", "data-sighting": s.id },
    el("td", {}, el("time", { datetime: s.time, text: when(s.time) })),
    el("td", { text: s.event }),
    el("td", { text: s.sentinel }),
    el("td", { text: s.zone }),
    el("td", { text: s.distance == null ? "–" : `${s.distance.toFixed(1)} m` })));
  $("sightings").tBodies[0].replaceChildren(...rows);
  $("sightings-empty").hidden = rows.length > 0;
  renderMap(state.sightings);
  renderTrail(state.sightings);
}

/** "Last seen 14 min ago at …", the numbered trail and the timeline by visit (trail.js). */
function renderTrail(sightings) {
  const newest = sightings[0];
  $("last-seen").textContent = newest ? `Last seen ${ago(newest.time)} ${newest.place || `at ${newest.sentinel}`} (${newest.zone}${newest.distance == null ? "" : `, ~${newest.distance.toFixed(0)} m`}), ${absolute(newest.time)}` : "";
  const visits = trailVisits(sightings.map((s) => ({ ...s, place: s.place || s.sentinel })));
  drawTrail($("trail"), visits);
  $("trail-caption").textContent = visits.length ? `${visits.length} visit${visits.length === 1 ? "" : "s"}, numbered in time order; the newest is red.` : "";
  $("timeline").replaceChildren(...visits.map((v) => {
    const minutes = Math.round((new Date(v.departed) - new Date(v.arrived)) / 60000);
    return el("li", { text: `${v.place}: ${absolute(v.arrived)} → ${absolute(v.departed)} (${minutes} min)` });
  }));
}

/** One entry per sentinel place (a roaming sentinel's: each fix), with how often the bike was heard there. */
function placesOf(sightings) {
  const places = new Map();
  for (const s of sightings) {
    if (s.latitude == null || s.longitude == null) continue; // a roaming sentinel without a fix
    const key = `${s.sentinel}|${s.latitude}|${s.longitude}`;
    const place = places.get(key) || { name: s.sentinel, lat: s.latitude, lon: s.longitude, count: 0, last: s.time };
    place.count += 1; places.set(key, place);
  }
  return [...places.values()];
}

/** A tiled Leaflet map when Leaflet, the tile server and the network are there; the SVG sketch otherwise. */
function renderMap(sightings) {
  const list = placesOf(sightings);
  const estimate = state.estimate;
  $("map-caption").textContent = list.length === 0 ? "" :
    `${list.length} sentinel place${list.length === 1 ? "" : "s"}, ${sightings.length} sighting${sightings.length === 1 ? "" : "s"}; north is up.` +
    (estimate ? ` Most likely ${estimate.words} (the circles: half the time, 9 times in 10).` : "");
  if (list.length > 0 && window.L && state.config && navigator.onLine) renderTiledMap(list);
  else showSketch(list);
}

function showSketch(list) {
  if (state.map) { state.map.remove(); state.map = null; }
  $("tiled-map").hidden = true; $("map").removeAttribute("hidden"); // an <svg> has no .hidden property
  renderSketch(list);
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Leaflet from our own server, tiles from `serve --map-tiles`; if no tile arrives, back to the sketch. */
function renderTiledMap(list) {
  $("tiled-map").hidden = false; $("map").setAttribute("hidden", "");
  if (!state.map) {
    const map = L.map("tiled-map", { scrollWheelZoom: false });
    const tiles = L.tileLayer(state.config.tiles, { attribution: escapeHtml(state.config.attribution), maxZoom: 19 });
    let loaded = 0;
    tiles.on("tileload", () => { loaded += 1; $("tiled-map").dataset.tiles = "loaded"; });
    // Outside Leaflet's own tile callback: removing the map inside it makes Leaflet read the removed map.
    tiles.on("load", () => setTimeout(() => { if (loaded === 0 && state.map === map) { showSketch(placesOf(state.sightings)); $("map-caption").textContent += " Map tiles could not be loaded: showing a sketch."; } }));
    tiles.addTo(map);
    map.places = L.featureGroup().addTo(map);
    map.estimate = L.layerGroup().addTo(map);
    state.map = map;
  }
  const map = state.map;
  map.places.clearLayers();
  for (const p of list) {
    const marker = L.circleMarker([p.lat, p.lon], { className: "place", radius: Math.min(14, 5 + Math.sqrt(p.count) * 2),
      color: "#fff", weight: 2, fillColor: "#b3261e", fillOpacity: 0.85 });
    marker.bindTooltip(el("span", { text: `${p.name} (${p.count})` }), { permanent: true, direction: "right", offset: [12, 0] });
    map.places.addLayer(marker);
  }
  // The estimate (#44): a circle the bike is within 9 times in 10, and a darker one for half the time. Its bounds from
  // the point and radius, and the circles added once the view is set: a circle projects only on a map with a view.
  const estimate = state.estimate;
  const bounds = map.places.getBounds();
  if (estimate) bounds.extend(L.latLng(estimate.latitude, estimate.longitude).toBounds(2 * estimate.radius90));
  map.fit = () => {
    map.invalidateSize();
    if (list.length === 1 && !estimate) map.setView([list[0].lat, list[0].lon], 16, { animate: false });
    else map.fitBounds(bounds, { padding: [40, 40], maxZoom: 17, animate: false });
  };
  map.fit();
  map.estimate.clearLayers();
  if (estimate) {
    for (const [radius, kind, opacity] of [[estimate.radius90, "r90", 0.08], [estimate.radius50, "r50", 0.16]]) {
      map.estimate.addLayer(L.circle([estimate.latitude, estimate.longitude], { radius, className: `estimate ${kind}`,
        color: "#1a5fb4", weight: 1.5, fillColor: "#1a5fb4", fillOpacity: opacity, interactive: false }));
    }
  }
}

/** Sentinel places on an equirectangular plot scaled to their bounding box: works offline, no tiles. */
function renderSketch(list) {
  const svg = $("map"), W = 320, H = 200, pad = 28;
  const ns = "http://www.w3.org/2000/svg";
  const make = (tag, attrs, text) => { const n = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); if (text != null) n.textContent = text; return n; };
  const keep = svg.querySelector("title");
  svg.replaceChildren(keep, make("rect", { class: "frame", x: 0.5, y: 0.5, width: W - 1, height: H - 1 }));
  if (list.length === 0) {
    svg.append(make("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "label" }, "No sentinel places yet"));
    return;
  }
  const estimate = state.estimate;
  const lats = list.map((p) => p.lat), lons = list.map((p) => p.lon);
  const midLat = (Math.min(...lats) + Math.max(...lats)) / 2;
  const kx = Math.cos(midLat * Math.PI / 180) || 1;
  let x0 = Math.min(...lons) * kx, x1 = Math.max(...lons) * kx, y0 = Math.min(...lats), y1 = Math.max(...lats);
  const span = Math.max(x1 - x0, y1 - y0, 0.002);
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const scale = Math.min((W - 2 * pad) / span, (H - 2 * pad) / span);
  if (estimate) {
    // Metres to the sketch's units: a degree of latitude is about 111 320 m.
    const x = W / 2 + (estimate.longitude * kx - cx) * scale, y = H / 2 - (estimate.latitude - cy) * scale;
    for (const [radius, kind] of [[estimate.radius90, "r90"], [estimate.radius50, "r50"]]) {
      svg.append(make("circle", { class: `estimate ${kind}`, cx: x.toFixed(1), cy: y.toFixed(1), r: Math.max(2, radius / 111320 * scale).toFixed(1) }));
    }
  }
  for (const p of list) {
    const x = W / 2 + (p.lon * kx - cx) * scale, y = H / 2 - (p.lat - cy) * scale;
    const r = Math.min(14, 5 + Math.sqrt(p.count) * 2);
    const group = make("g", { class: "place" });
    group.append(make("title", {}, `${p.name}: ${p.count} sighting${p.count === 1 ? "" : "s"} (${p.lat.toFixed(5)}, ${p.lon.toFixed(5)})`));
    group.append(make("circle", { class: "dot", cx: x.toFixed(1), cy: y.toFixed(1), r: r.toFixed(1) }));
    group.append(make("text", { class: "label", x: (x + r + 3).toFixed(1), y: (y + 3).toFixed(1), "text-anchor": x > W * 0.7 ? "end" : "start",
      dx: x > W * 0.7 ? (-2 * r - 6).toFixed(1) : 0 }, `${p.name} (${p.count})`));
    svg.append(group);
  }
}

async function exportSightings(format) {
  $("sightings-error").textContent = "";
  try {
    const response = await api("GET", `/v1/bikes/${encodeURIComponent(state.selected)}/sightings?format=${format}`, undefined, { raw: true });
    const blob = await response.blob();
    const bike = state.bikes.find((b) => b.id === state.selected);
    const safe = (bike ? bike.name : "bike").replace(/[^A-Za-z0-9_-]+/g, "-");
    const link = el("a", { href: URL.createObjectURL(blob), download: `${safe}-sightings.${format === "csv" ? "csv" : "geojson"}` });
    document.body.append(link); link.click(); link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (error) { $("sightings-error").textContent = error.message; }
}

// ---- live events: the server-sent-events stream, read with fetch (the session cookie goes with it) ----

function setLive(on, text) {
  const badge = $("live");
  badge.textContent = text; badge.classList.toggle("on", on);
}

async function followEvents() {
  const controller = new AbortController();
  state.events = controller;
  let lastId = null;
  let failures = 0;
  while (!controller.signal.aborted && state.signedIn) {
    try {
      const headers = { Accept: "text/event-stream" };
      if (lastId) headers["Last-Event-ID"] = lastId;
      const response = await fetch("/v1/events", { headers, signal: controller.signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setLive(true, "live: connected");
      failures = 0;
      if (!$("offline").hidden) refresh(); // the server is back: replace what the offline cache showed
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
          let id = null, data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("id:")) id = line.slice(3).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          }
          if (id) lastId = id;
          if (data.length) onEvent(JSON.parse(data.join("\n")));
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      failures += 1;
    }
    setLive(false, "live: reconnecting");
    // At a random moment within a window that doubles with each failure in a row (20 s, then up to a minute): after a
    // server restart every open dashboard reconnects, and all at once they are more than it can open (#36: 10 000 on
    // PostgreSQL, half timed out; spread over 20 s, all opened within 4 s each). Missed events come with Last-Event-ID.
    await new Promise((resolve) => setTimeout(resolve, 1000 + Math.random() * Math.min(60000, 20000 * 2 ** failures)));
  }
}

/** A sighting of a missing bike, or a sentinel's change of state (an owner's home sentinel; every sentinel for an operator). */
function onEvent(event) {
  $("events-empty").hidden = true;
  const sentinel = event.type === "sentinel";
  const text = sentinel ? `${event.sentinel} is ${event.state}${event.state === "listening" || !event.reason ? "" : ` (${event.reason})`}`
    : `${event.bikeName} ${event.event} at ${event.sentinel} (${event.zone}${event.distance == null ? "" : `, ${event.distance.toFixed(1)} m`})` +
      (event.estimate ? `; most likely ${event.estimate.words}` : "");
  const item = el("li", sentinel ? { "data-sentinel-event": event.sentinelId } : { "data-event": event.sightingId },
    el("time", { datetime: event.time, text: when(event.time) }), " — ", text);
  $("events").prepend(item);
  while ($("events").children.length > 50) $("events").lastElementChild.remove();
  if (sentinel) { networkChanged(); if (state.view === "coverage") openCoverageMap(); return; }
  if (event.bikeId === state.selected) loadSightings(event.sightingId);
}

// ---- pages: the bikes, the coverage map, and the operator's network (`/?view=coverage`, `/?view=network`) ----

const VIEWS = { bikes: "view-bikes", coverage: "view-coverage", network: "view-network" };

function viewFromURL() {
  const wanted = new URLSearchParams(location.search).get("view");
  return Object.hasOwn(VIEWS, wanted || "") ? wanted : "bikes";
}

/** Shows one page; `push` when the user chose it (Back returns). The Network page is shown to whoever opens
 * its address: the API decides, and an owner who is not an operator reads its refusal there. */
function showView(name, { push = false } = {}) {
  state.view = name;
  for (const [key, id] of Object.entries(VIEWS)) $(id).hidden = key !== name;
  for (const link of document.querySelectorAll("#views a")) {
    if (link.dataset.view === name) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  if (push) history.pushState(null, "", name === "bikes" ? "/" : `/?view=${name}`);
  if (name !== "network") closeNetwork();
  if (!state.signedIn) return;
  if (name === "network") openNetwork();
  else if (name === "coverage") openCoverageMap();
  else if (state.map) state.map.fit();
}

function wireViews() {
  for (const link of document.querySelectorAll("#views a")) {
    link.addEventListener("click", (event) => { event.preventDefault(); showView(link.dataset.view, { push: true }); });
  }
  window.addEventListener("popstate", () => { if (state.signedIn) showView(viewFromURL()); });
}

/** Whether to offer the Network page: only to operators (`bikebeacon-server operators add EMAIL`). */
async function loadOperator() {
  try {
    state.operator = Boolean((await api("GET", "/v1/account")).operator);
  } catch (_) { state.operator = false; }
  $("nav-network").hidden = !state.operator;
}

// ---- password: changed with the current one, no email needed; the server logs out the other devices ----

function wirePassword() {
  $("password-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget; clearErrors(form); $("password-status").textContent = "";
    try {
      const currentPassword = form.currentPassword.value, newPassword = form.newPassword.value;
      if (!currentPassword) throw new FieldError("Enter your current password.", "currentPassword");
      if (newPassword.length < 8) throw new FieldError("Use a password of 8 characters or more.", "newPassword");
      await api("PUT", "/v1/account/password", { currentPassword, newPassword });
      form.reset();
      $("password-status").textContent = "Password changed; your other devices are logged out.";
      loadSessions();
    } catch (error) {
      // A wrong current password comes back as invalid_credentials, which api() puts on 'password'.
      if (error.field === "password") error.field = "currentPassword";
      showError(form, "password", error);
    }
  });
}

// ---- webhook ----

function wireWebhook() {
  $("webhook-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget; clearErrors(form);
    $("webhook-status").textContent = ""; $("webhook-secret").hidden = true;
    try {
      const url = form.url.value.trim();
      if (!/^https?:\/\/\S+$/i.test(url)) throw new FieldError("Enter an http:// or https:// URL.", "url");
      const saved = await api("PUT", "/v1/account/webhook", { url });
      $("webhook-secret").textContent = `Signing secret (shown once; keep it to verify the BikeBeacon-Signature header): ${saved.secret}`;
      $("webhook-secret").hidden = false;
      $("webhook-status").textContent = `Webhook saved: ${saved.url}`;
    } catch (error) { showError(form, "webhook", error); }
  });
  $("webhook-remove").addEventListener("click", async () => {
    const form = $("webhook-form"); clearErrors(form);
    try {
      await api("DELETE", "/v1/account/webhook");
      form.reset(); $("webhook-secret").hidden = true;
      $("webhook-status").textContent = "Webhook removed.";
    } catch (error) { showError(form, "webhook", error); }
  });
}

// ---- offline: the service worker answers with what was last loaded ----

/** Says so when an answer came from the service worker's cache (its time), hides the note when one came from the server. */
function showOffline(cachedAt) {
  if (cachedAt === null) { $("offline").hidden = true; return; }
  const at = new Date(cachedAt);
  $("offline").textContent = `Offline: showing what was last loaded${isNaN(at) ? "" : ` (${when(cachedAt)})`}. Changes need a connection.`;
  $("offline").hidden = false;
}

function refresh() {
  if (state.signedIn) { loadBikes(); loadSightings(); loadNotificationSettings(); loadSessions(); }
}

async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  try {
    await navigator.serviceWorker.register("/sw.js");
  } catch (error) { console.warn("bikebeacon: no offline shell:", error); }
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data && event.data.type === "show-bike" && event.data.bikeId) showBike(event.data.bikeId);
  });
}

/** Opens a bike's sightings (a notification's click, or `/?bike=ID`) once the bikes are loaded. */
async function showBike(id) {
  if (!state.signedIn) return;
  if (!state.bikes.some((b) => b.id === id)) await loadBikes();
  if (state.bikes.some((b) => b.id === id)) await selectBike(id);
}

// ---- notifications: push on this device, and which channels the account wants ----

function base64urlBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function setNotifyStatus(text) { $("notify-status").textContent = text; }

function renderPushButton() {
  const on = Boolean(localStorage.getItem(PUSH_KEY));
  $("notify-enable").textContent = on ? "Turn off notifications on this device" : "Enable notifications on this device";
  $("notify-enable").dataset.on = on ? "true" : "false";
}

/** Subscribes this browser with the server's VAPID key and registers the subscription with the account. */
async function enablePush() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window))
    throw new FieldError("This browser cannot receive push notifications; email notifications still work.");
  const permission = await Notification.requestPermission();
  if (permission !== "granted")
    throw new FieldError("Notifications are blocked for this site: allow them in the browser's site settings, then try again.");
  let key;
  try { key = (await api("GET", "/v1/push/key")).publicKey; }
  catch (error) { throw new FieldError(error.status === 404 ? "This server does not send push notifications." : error.message); }
  const registration = await navigator.serviceWorker.ready;
  const applicationServerKey = base64urlBytes(key);
  let subscription = await registration.pushManager.getSubscription();
  const sameKey = subscription && subscription.options.applicationServerKey
    && new Uint8Array(subscription.options.applicationServerKey).join() === applicationServerKey.join();
  if (subscription && !sameKey) { await subscription.unsubscribe(); subscription = null; }
  try {
    // The browser asks its vendor's push service; without an answer it would wait for minutes.
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no answer in 20 s")), 20000));
    subscription = subscription || await Promise.race([registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey }), timeout]);
  } catch (error) {
    throw new FieldError(`The browser's push service did not subscribe this device (${error.message}). Check the connection and try again.`);
  }
  const saved = await api("POST", "/v1/push/subscriptions", subscription.toJSON());
  localStorage.setItem(PUSH_KEY, saved.id);
  setNotifyStatus("Notifications are on for this device.");
}

async function disablePush() {
  const id = localStorage.getItem(PUSH_KEY);
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (subscription) await subscription.unsubscribe();
  if (id) await api("DELETE", `/v1/push/subscriptions/${encodeURIComponent(id)}`).catch((error) => { if (error.status !== 404) throw error; });
  localStorage.removeItem(PUSH_KEY);
  setNotifyStatus("Notifications are off for this device.");
}

async function loadNotificationSettings() {
  $("notify-error").textContent = "";
  try {
    const settings = await api("GET", "/v1/account/notifications");
    $("notify-push").checked = Boolean(settings.push); $("notify-email").checked = Boolean(settings.email);
    $("notify-settings").hidden = false;
  } catch (error) {
    $("notify-settings").hidden = true;
    // 404: a server without notifications; no status: offline, and the settings are not worth an alarm.
    if (error.status && error.status !== 404) $("notify-error").textContent = error.message;
  }
}

function wireNotifications() {
  renderPushButton();
  $("notify-enable").addEventListener("click", async () => {
    $("notify-error").textContent = ""; setNotifyStatus("");
    try {
      if ($("notify-enable").dataset.on === "true") await disablePush(); else await enablePush();
    } catch (error) { $("notify-error").textContent = error.message; }
    renderPushButton();
  });
  for (const box of [$("notify-push"), $("notify-email")]) {
    box.addEventListener("change", async () => {
      $("notify-error").textContent = "";
      try {
        await api("PUT", "/v1/account/notifications", { push: $("notify-push").checked, email: $("notify-email").checked });
        setNotifyStatus("Notification settings saved.");
      } catch (error) { $("notify-error").textContent = error.message; box.checked = !box.checked; }
    });
  }
}

// ---- sessions: where this account is logged in, and ending one ----

function describeSession(session) {
  const agent = session.userAgent || "";
  const what = session.kind === "token" ? "Command line (token)"
    : /Android|iPhone|iPad|Mobile/.test(agent) ? "Phone browser" : agent ? "Browser" : "Dashboard";
  const browser = (/(Firefox|Edg|Chrome|Chromium|Safari)\/[\d.]+/.exec(agent) || [""])[0];
  return `${what}${browser ? ` (${browser})` : ""}`;
}

async function loadSessions() {
  $("sessions-error").textContent = "";
  try {
    const { sessions } = await api("GET", "/v1/account/sessions");
    $("sessions").replaceChildren(...sessions.map((session) => el("li", { "data-session": session.id },
      el("span", {}, el("strong", { text: describeSession(session) }), session.current ? " · this browser" : "",
        el("br"), el("span", { class: "muted", text: `logged in ${when(session.createdAt)}, last used ${when(session.lastUsedAt)}` })),
      session.current ? null : el("button", { type: "button", class: "secondary", "aria-label": `Log out ${describeSession(session)}`,
        text: "Log out", onclick: () => revokeSession(session.id) }))));
  } catch (error) {
    if (error.status) $("sessions-error").textContent = error.message;
    else $("sessions").replaceChildren(el("li", { class: "muted", text: "Shown when the server can be reached." }));
  }
}

async function revokeSession(id) {
  $("sessions-error").textContent = "";
  try { await api("DELETE", `/v1/account/sessions/${encodeURIComponent(id)}`); await loadSessions(); }
  catch (error) { $("sessions-error").textContent = error.message; }
}

// ---- start ----

async function loadConfig() {
  try {
    const response = await fetch("/dashboard/config.json");
    if (response.ok) state.config = await response.json();
  } catch (_) { /* offline and not cached yet: the map stays a sketch */ }
}

async function showApp() {
  $("auth").hidden = true; $("app").hidden = false; $("who").hidden = false; $("views").hidden = false;
  $("who-email").textContent = state.email;
  loadOperator();
  showView(viewFromURL());
  await loadBikes();
  loadNotificationSettings();
  loadSessions();
  loadHomeSentinels();
  if (!state.events) followEvents();
  // `/?bike=ID` (notifications, this page) or `/#bike=ID` (the links in notification emails).
  const wanted = new URLSearchParams(location.search).get("bike") || new URLSearchParams(location.hash.slice(1)).get("bike");
  if (wanted) await showBike(wanted);
}

document.addEventListener("DOMContentLoaded", async () => {
  wireAuth(); wireBikeForm(); wireWebhook(); wirePassword(); wireNotifications(); wireViews(); wireNetwork();
  $("export-csv").addEventListener("click", () => exportSightings("csv"));
  $("export-geojson").addEventListener("click", () => exportSightings("geojson"));
  window.addEventListener("online", refresh);
  window.addEventListener("resize", () => {
    if (state.map) state.map.fit();
    if (network.map) network.map.fit();
    if (coverageMap.map) coverageMap.map.fit();
  });
  registerServiceWorker();
  await loadConfig();
  // Earlier versions kept a bearer token here, where any injected script could read it.
  localStorage.removeItem("bikebeacon.token"); localStorage.removeItem("bikebeacon.email");
  try {
    const account = await api("GET", "/v1/account");
    state.signedIn = true; state.email = account.email;
  } catch (_) { /* not logged in, or offline before any visit */ }
  if (state.signedIn) showApp(); else { $("auth").hidden = false; await followAccountLink(); }
});
