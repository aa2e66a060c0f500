// A map of sentinel places, shared by the operator's Network page and the owners' coverage map:
// Leaflet with the server's tiles (`serve --map-tiles`) when Leaflet, the tiles and the network are
// there, else an SVG sketch that needs none. Each point carries its own colour and CSS class, so a
// test (or a user) can tell the states apart; the tables and lists beside the maps say the same in words.
"use strict";

/** The colour of a sentinel's state on both maps; "off" is the coverage map's "not listening". */
const STATE_COLOURS = { listening: "#1e7d34", degraded: "#a15c00", silent: "#b3261e", retired: "#6b7280", off: "#b3261e" };

/** A map in `holderId` (a Leaflet container) with `sketchId` (an <svg viewBox="0 0 320 200"> with a <title>) as its
 * fallback and `captionId` for what it shows; `draw(points)` takes [{name, lat, lon, state, text}]. */
function sentinelMap(holderId, sketchId, captionId) {
  const view = { map: null, layer: null, points: [], caption: "" };

  view.draw = (points, caption) => {
    view.points = points; view.caption = caption;
    $(captionId).textContent = caption;
    if (points.length > 0 && window.L && state.config && navigator.onLine) drawTiles();
    else drawSketch();
  };

  view.remove = () => { if (view.map) { view.map.remove(); view.map = null; } };

  view.fit = () => {
    const map = view.map;
    if (!map || view.points.length === 0) return;
    map.invalidateSize();
    if (view.points.length === 1) map.setView([view.points[0].lat, view.points[0].lon], 15, { animate: false });
    else map.fitBounds(view.layer.getBounds(), { padding: [30, 30], maxZoom: 16, animate: false });
  };

  function drawTiles() {
    $(holderId).hidden = false; $(sketchId).setAttribute("hidden", "");
    if (!view.map) {
      const map = L.map(holderId, { scrollWheelZoom: false });
      const tiles = L.tileLayer(state.config.tiles, { attribution: escapeHtml(state.config.attribution), maxZoom: 19 });
      let loaded = 0;
      tiles.on("tileload", () => { loaded += 1; $(holderId).dataset.tiles = "loaded"; });
      // Outside Leaflet's own tile callback: removing the map inside it makes Leaflet read the removed map.
      tiles.on("load", () => setTimeout(() => {
        if (loaded === 0 && view.map === map) { drawSketch(); $(captionId).textContent = `${view.caption} Map tiles could not be loaded: showing a sketch.`; }
      }));
      tiles.addTo(map);
      view.layer = L.featureGroup().addTo(map);
      view.map = map;
    }
    view.layer.clearLayers();
    for (const p of view.points) {
      const marker = L.circleMarker([p.lat, p.lon], { className: `sentinel state-${p.state}`, radius: 8, color: "#fff", weight: 2,
        fillColor: STATE_COLOURS[p.state] || STATE_COLOURS.silent, fillOpacity: 0.9 });
      marker.bindTooltip(el("span", { text: p.text }), { direction: "right", offset: [10, 0] });
      view.layer.addLayer(marker);
    }
    view.fit();
  }

  /** The points on an equirectangular plot scaled to their bounding box (trail.js's `projection`). */
  function drawSketch() {
    view.remove();
    $(holderId).hidden = true; $(sketchId).removeAttribute("hidden"); // an <svg> has no .hidden property
    const svg = $(sketchId), W = 320, H = 200, pad = 24, ns = "http://www.w3.org/2000/svg";
    const make = (tag, attrs, text) => { const n = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); if (text != null) n.textContent = text; return n; };
    svg.replaceChildren(svg.querySelector("title"), make("rect", { class: "frame", x: 0.5, y: 0.5, width: W - 1, height: H - 1 }));
    const points = view.points;
    if (points.length === 0) {
      svg.append(make("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "label" }, "No sentinel to show"));
      return;
    }
    const place = projection(points, W, H, pad);
    for (const p of points) {
      const [x, y] = place(p.lat, p.lon);
      const group = make("g", { class: `sentinel state-${p.state}` });
      group.append(make("title", {}, p.text));
      group.append(make("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 6, fill: STATE_COLOURS[p.state] || STATE_COLOURS.silent, stroke: "#fff", "stroke-width": 1.5 }));
      group.append(make("text", { class: "label", x: (x + 9).toFixed(1), y: (y + 3).toFixed(1), "text-anchor": x > W * 0.7 ? "end" : "start",
        dx: x > W * 0.7 ? -18 : 0 }, p.name));
      svg.append(group);
    }
  }

  return view;
}
