// Lost mode: what the owner does the moment a bike is marked missing, as a checklist whose items
// show their state (notifications on, a share link made, the theft report opened), and what the
// network saw once it is recovered. Uses app.js's api, el, $, state and PUSH_KEY.
"use strict";

const lost = { bike: null, token: null };

function reportedKey(bike) { return `bikebeacon.reportOpened.${bike.id}`; }

function setCheck(id, done, text) {
  const item = $(id);
  item.dataset.done = done ? "true" : "false";
  item.querySelector(".check-state").textContent = done ? "✓ Done:" : "To do:";
  if (text !== undefined && id === "check-notify") $("check-notify-detail").textContent = text;
}

async function openLostMode(bike, { focus = true } = {}) {
  const same = lost.bike && lost.bike.id === bike.id;
  lost.bike = bike;
  if (!same) { lost.token = null; $("share-made").hidden = true; $("share-error").textContent = ""; }
  $("recovered").hidden = true; $("lost").hidden = false;
  $("lost-title").textContent = `${bike.name} is missing: what to do now`;
  setCheck("check-report", Boolean(localStorage.getItem(reportedKey(bike))));
  updateReportLink();
  if (focus) $("lost-title").focus();
  await Promise.all([checkNotifications(), loadShares()]);
}

/** Done when this device gets pushes, or the account gets email. */
async function checkNotifications() {
  try {
    const settings = await api("GET", "/v1/account/notifications");
    const device = Boolean(localStorage.getItem(PUSH_KEY)) && settings.push;
    const done = device || settings.email;
    setCheck("check-notify", done, done ? `On: ${[device ? "push on this device" : null, settings.email ? "email" : null].filter(Boolean).join(" and ")}.`
      : "Off: turn on push on this device or email below.");
  } catch (error) {
    setCheck("check-notify", false, error.status === 404 ? "This server sends no notifications; watch this page." : error.message);
  }
}

async function loadShares() {
  if (!lost.bike) return;
  try {
    const { shares } = await api("GET", `/v1/bikes/${encodeURIComponent(lost.bike.id)}/shares`);
    $("shares").replaceChildren(...shares.map((share) => el("li", { "data-share": share.id, "data-status": share.status },
      el("span", { text: `${share.label || "Share link"}: ${share.status}, ${share.views} view${share.views === 1 ? "" : "s"}` +
        (share.status === "active" ? `, until ${when(share.expiresAt)}` : "") }),
      share.status === "active" ? el("button", { type: "button", class: "secondary", "aria-label": `Revoke ${share.label || "share link"}`,
        text: "Revoke", onclick: () => revokeShare(share) }) : null)));
    setCheck("check-share", shares.some((share) => share.status === "active"));
  } catch (error) { $("share-error").textContent = error.message; }
}

async function makeShare() {
  $("share-error").textContent = "";
  try {
    const share = await api("POST", `/v1/bikes/${encodeURIComponent(lost.bike.id)}/shares`, {
      expiresIn: Number($("share-expires").value), label: $("share-label").value.trim(), includeNotes: $("share-notes").checked });
    lost.token = share.token;
    $("share-url").href = share.url; $("share-url").textContent = share.url;
    $("share-made").hidden = false;
    updateReportLink();
    await loadShares();
    if (navigator.clipboard) navigator.clipboard.writeText(share.url).catch(() => {});
  } catch (error) { $("share-error").textContent = error.message; }
}

async function revokeShare(share) {
  $("share-error").textContent = "";
  try {
    await api("DELETE", `/v1/bikes/${encodeURIComponent(lost.bike.id)}/shares/${encodeURIComponent(share.id)}`);
    if ($("share-url").href.endsWith(lost.token || "\u0000")) { lost.token = null; $("share-made").hidden = true; updateReportLink(); }
    await loadShares();
  } catch (error) { $("share-error").textContent = error.message; }
}

function updateReportLink() {
  if (!lost.bike) return;
  // Percent-encoded, not form-encoded: the server reads '+' as itself.
  const owner = $("report-owner").value.trim();
  // The share token goes in the path, never the query string (which proxies log).
  const share = lost.token ? `/${encodeURIComponent(lost.token)}` : "";
  $("report-open").href = `/v1/bikes/${encodeURIComponent(lost.bike.id)}/report${share}${owner ? `?owner=${encodeURIComponent(owner)}` : ""}`;
  $("report-hint").textContent = lost.token ? "The report carries the share link as a QR code." : "Make a share link first to put its QR code on the report.";
}

/** Ends lost mode and says what the network saw while the bike was missing. */
async function showRecovered(bike) {
  $("lost").hidden = true; lost.bike = null;
  localStorage.removeItem(reportedKey(bike));
  let text = `${bike.name} is marked recovered and off the missing list.`;
  try {
    const { sightings } = await api("GET", `/v1/bikes/${encodeURIComponent(bike.id)}/sightings?limit=500`);
    // A minute's grace: sentinels' clocks and the times they round to the second.
    const since = bike.missingSince ? new Date(new Date(bike.missingSince).getTime() - 60000) : new Date(0);
    const seen = sightings.filter((s) => new Date(s.time) >= since);
    const places = new Set(seen.map((s) => s.sentinel));
    text += seen.length === 0 ? " No sentinel heard it while it was missing."
      : ` While it was missing, sentinels heard it ${seen.length} time${seen.length === 1 ? "" : "s"} at ${places.size} place${places.size === 1 ? "" : "s"}; last at ${seen[0].sentinel}, ${when(seen[0].time)}.`;
  } catch (_) { /* the summary is a courtesy: the bike is recovered either way */ }
  $("recovered").textContent = text; $("recovered").hidden = false;
}

document.addEventListener("DOMContentLoaded", () => {
  $("share-make").addEventListener("click", makeShare);
  $("report-owner").addEventListener("input", updateReportLink);
  $("report-open").addEventListener("click", () => {
    if (!lost.bike) return;
    localStorage.setItem(reportedKey(lost.bike), new Date().toISOString());
    setCheck("check-report", true);
  });
  $("lost-notify").addEventListener("click", () => { $("notify").scrollIntoView(); $("notify-enable").focus(); });
  for (const box of [$("notify-push"), $("notify-email")]) box.addEventListener("change", () => { if (lost.bike) setTimeout(checkNotifications, 300); });
  $("notify-enable").addEventListener("click", () => { if (lost.bike) setTimeout(checkNotifications, 1000); });
});
