// The owners' coverage map: where the network listens (GET /v1/network/coverage). Only public
// sentinels whose hosts put them on it, each listening now or not; home sentinels never appear.
"use strict";

const coverageMap = { map: null };

async function openCoverageMap() {
  if (!coverageMap.map) coverageMap.map = sentinelMap("coverage-tiles", "coverage-sketch", "coverage-map-caption");
  try {
    const { sentinels } = await api("GET", "/v1/network/coverage");
    $("coverage-map-error").textContent = "";
    const listening = sentinels.filter((s) => s.listening).length;
    $("coverage-map-summary").textContent = sentinels.length === 0
      ? "No sentinel is on the coverage map yet: each host chooses whether theirs is shown."
      : `${sentinels.length} public sentinel${sentinels.length === 1 ? "" : "s"} on the map, ${listening} listening now.`;
    $("coverage-map-list").replaceChildren(...sentinels.map((s) => el("li", { "data-sentinel": s.name, "data-listening": String(s.listening) },
      el("span", { text: s.name }), el("span", { class: `state state-${s.listening ? "listening" : "off"}`, text: s.listening ? "listening now" : "not listening now" }))));
    coverageMap.map.draw(sentinels.map((s) => ({ name: s.name, lat: s.latitude, lon: s.longitude, state: s.listening ? "listening" : "off",
      text: `${s.name}: ${s.listening ? "listening now" : "not listening now"}` })),
    sentinels.length ? "Green: listening now; red: not listening now." : "");
  } catch (error) {
    $("coverage-map-error").textContent = `The coverage map could not be loaded: ${error.message}`;
  }
}
