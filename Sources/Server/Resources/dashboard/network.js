// The operator's Network page: every sentinel with its health (GET /v1/network/sentinels, which
// answers 403 to an owner who is not an operator), a map coloured by state, and filters. It follows
// the event stream, which carries every sentinel's change of state to operators, and reloads every
// minute besides, for the heartbeat times.
"use strict";

const network = { sentinels: [], filter: "all", map: null, timer: null, pending: null };

/** The filters: "outdated" is the server's: older than the newest version any sentinel in the network reports. */
const NETWORK_FILTERS = {
  all: () => true,
  silent: (s) => s.state === "silent",
  degraded: (s) => s.state === "degraded",
  outdated: (s) => s.outdated,
};

function openNetwork() {
  if (!network.map) network.map = sentinelMap("network-map", "network-sketch", "network-map-caption");
  loadNetwork();
  clearInterval(network.timer);
  network.timer = setInterval(loadNetwork, 60000);
}

function closeNetwork() {
  clearInterval(network.timer); network.timer = null;
}

/** A sentinel changed state (the event stream): reload once for a burst of changes. */
function networkChanged() {
  if (state.view !== "network" || network.pending) return;
  network.pending = setTimeout(() => { network.pending = null; loadNetwork(); }, 200);
}

async function loadNetwork() {
  try {
    network.sentinels = (await api("GET", "/v1/network/sentinels")).sentinels;
    renderReports(await api("GET", "/v1/network/reports"));
    $("network-error").textContent = "";
    $("network-body").hidden = false;
    renderNetwork();
  } catch (error) {
    $("network-body").hidden = true;
    $("network-error").textContent = error.status === 403
      ? `Only the network's operators can see this page, and this account is not one. The server said: ${error.message}.`
      : `The network could not be loaded: ${error.message}`;
  }
}

function renderNetwork() {
  const all = network.sentinels;
  for (const name of Object.keys(NETWORK_FILTERS)) $(`network-count-${name}`).textContent = `(${all.filter(NETWORK_FILTERS[name]).length})`;
  const count = (wanted) => all.filter((s) => s.state === wanted).length;
  $("network-summary").textContent = `${all.length} sentinel${all.length === 1 ? "" : "s"}: ${count("listening")} listening, `
    + `${count("degraded")} degraded, ${count("silent")} silent, ${count("retired")} retired. Updated ${new Date().toLocaleTimeString()}.`;
  const shown = all.filter(NETWORK_FILTERS[network.filter]);
  $("network-table").tBodies[0].replaceChildren(...shown.map(networkRow));
  $("network-empty").hidden = shown.length > 0;
  const placed = shown.filter((s) => s.latitude != null && s.longitude != null);
  const points = placed.map((s) => ({ name: s.name, lat: s.latitude, lon: s.longitude, state: s.state,
    text: `${s.name}: ${s.state}${s.state === "listening" ? "" : ` (${s.reason})`}` }));
  const roaming = shown.length - placed.length;
  network.map.draw(points, `${placed.length} sentinel${placed.length === 1 ? "" : "s"} on the map`
    + `${roaming ? `, ${roaming} roaming (no fixed place)` : ""}: green listening, amber degraded, red silent, grey retired.`);
}

function networkRow(s) {
  const minutes = (seconds) => (seconds < 90 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`);
  const outbox = s.outboxDepth == null ? "–" : s.outboxDepth === 0 ? "empty"
    : `${s.outboxDepth}${s.outboxOldestAgeSeconds == null ? "" : `, oldest ${minutes(s.outboxOldestAgeSeconds)}`}`;
  const offset = s.clockOffsetSeconds == null ? "–" : `${s.clockOffsetSeconds > 0 ? "+" : ""}${s.clockOffsetSeconds.toFixed(1)} s`;
  const kind = [s.home ? "home" : null, s.latitude == null ? "roaming" : null, s.onCoverageMap ? "on the coverage map" : null].filter(Boolean).join(", ");
  return el("tr", { "data-sentinel": s.name, "data-state": s.state },
    el("th", { scope: "row" }, s.name, kind ? el("span", { class: "muted", text: ` (${kind})` }) : null),
    el("td", {}, el("span", { class: `state state-${s.state}`, text: s.state }), s.state === "listening" ? null : el("br"),
      s.state === "listening" ? null : el("span", { class: "muted", text: s.reason })),
    el("td", {}, s.since ? el("time", { datetime: s.since, title: absolute(s.since), text: ago(s.since) }) : "–"),
    el("td", {}, s.lastHeartbeatAt ? el("time", { datetime: s.lastHeartbeatAt, title: absolute(s.lastHeartbeatAt), text: ago(s.lastHeartbeatAt) }) : "never"),
    el("td", { text: s.version ? `${s.version}${s.outdated ? " (outdated)" : ""}` : "–", class: s.outdated ? "outdated" : "" }),
    el("td", { text: s.reportsPerMinute == null ? "–" : String(Math.round(s.reportsPerMinute)) }),
    el("td", { text: outbox }),
    el("td", { text: offset }));
}

function wireNetwork() {
  for (const radio of document.querySelectorAll("input[name=network-filter]")) {
    radio.addEventListener("change", () => { network.filter = radio.value; renderNetwork(); });
  }
}

/** The reports of hidden tags that wait on the operator (GET /v1/network/reports): none may wait unseen. */
function renderReports(list) {
  $("network-reports-count").textContent = `(${list.open} open, ${list.held} held)`;
  $("network-reports-list").replaceChildren(...list.reports.map((r) => el("li", { "data-report": r.reference },
    el("code", { text: r.reference }), ` ${r.status}, reported `,
    el("time", { datetime: r.reportedAt, title: absolute(r.reportedAt), text: ago(r.reportedAt) }),
    r.status === "held" ? " — held by the breaker: abuse seal or abuse dismiss" : "")));
}
