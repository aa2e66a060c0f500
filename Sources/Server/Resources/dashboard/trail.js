// The trail of a bike's sightings, shared by the dashboard and the shared page: places in time
// order (consecutive sightings at one place are one visit) and an SVG sketch of them, numbered,
// joined by a line, the newest highlighted. Works offline, no tiles.
"use strict";

/** Visits oldest first: {place, lat, lon, arrived, departed, count}; a sighting without a position is skipped. */
function trailVisits(sightings) {
  const ordered = [...sightings].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  const visits = [];
  for (const s of ordered) {
    if (s.latitude == null || s.longitude == null) continue;
    const last = visits[visits.length - 1];
    if (last && last.sentinel === s.sentinel && last.lat === s.latitude && last.lon === s.longitude) {
      last.departed = s.time; last.count += 1;
    } else {
      visits.push({ sentinel: s.sentinel, place: s.place || s.sentinel, lat: s.latitude, lon: s.longitude, arrived: s.time, departed: s.time, count: 1 });
    }
  }
  return visits;
}

/** "14 min ago" from an RFC 3339 time. */
function ago(text, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - new Date(text).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} days ago`;
}

function absolute(text) {
  const date = new Date(text);
  return isNaN(date) ? text : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** An equirectangular projection of places ({lat, lon}, at least one) scaled to their bounding box in a W×H
 * drawing with `pad` around (at least 0.002° across): (lat, lon) → [x, y], north up. */
function projection(places, W, H, pad) {
  const lats = places.map((p) => p.lat), lons = places.map((p) => p.lon);
  const kx = Math.cos(((Math.min(...lats) + Math.max(...lats)) / 2) * Math.PI / 180) || 1;
  const x0 = Math.min(...lons) * kx, x1 = Math.max(...lons) * kx, y0 = Math.min(...lats), y1 = Math.max(...lats);
  const span = Math.max(x1 - x0, y1 - y0, 0.002), cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const scale = Math.min((W - 2 * pad) / span, (H - 2 * pad) / span);
  return (lat, lon) => [W / 2 + (lon * kx - cx) * scale, H / 2 - (lat - cy) * scale];
}

/** Draws the visits into an <svg viewBox="0 0 320 200">, keeping its <title>. */
function drawTrail(svg, visits) {
  const W = 320, H = 200, pad = 28, ns = "http://www.w3.org/2000/svg";
  const make = (tag, attrs, text) => { const n = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); if (text != null) n.textContent = text; return n; };
  svg.replaceChildren(svg.querySelector("title"), make("rect", { class: "frame", x: 0.5, y: 0.5, width: W - 1, height: H - 1 }));
  if (visits.length === 0) {
    svg.append(make("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "label" }, "No places yet"));
    return;
  }
  const place = projection(visits, W, H, pad);
  const points = visits.map((v) => place(v.lat, v.lon));
  if (points.length > 1) svg.append(make("polyline", { class: "trail-line", points: points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ") }));
  visits.forEach((v, i) => {
    const [x, y] = points[i], newest = i === visits.length - 1;
    const group = make("g", { class: "stop" + (newest ? " newest" : ""), "data-stop": String(i + 1) });
    group.append(make("title", {}, `${i + 1}. ${v.place}, ${absolute(v.arrived)}${newest ? " (newest)" : ""}`));
    group.append(make("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: newest ? 10 : 8 }));
    group.append(make("text", { class: "stop-number", x: x.toFixed(1), y: (y + 4).toFixed(1), "text-anchor": "middle" }, String(i + 1)));
    svg.append(group);
  });
}

/** Who listens around the bike's last place (`BikeCoverage`), in words: "Within 1 km of the last place: 3 public
 * sentinels, 2 of them listening now. Cafe Rosa: not listening 21 Nov 2026, 21:05–23:40." */
function coverageText(coverage) {
  if (!coverage) return "";
  if (!coverage.place) return "Coverage: no sentinel has heard this bike at a known place yet, so there is no place to say who listens around.";
  const radius = coverage.radiusMetres >= 1000 ? `${coverage.radiusMetres / 1000} km` : `${coverage.radiusMetres} m`;
  const count = coverage.sentinels.length;
  const hearing = (listening, of) => of === 1 ? (listening ? "listening" : "not listening")
    : `${listening === 0 ? "none" : listening === of ? "all" : listening} of them listening`;
  // Sentinels whose hosts did not opt in to the coverage map are only counted, never named (#43).
  const unnamed = coverage.unnamed > 0 ? ` ${coverage.unnamed} more not on the coverage map (${hearing(coverage.unnamedListening, coverage.unnamed)}).` : "";
  if (count === 0) {
    return coverage.unnamed > 0 ? `Within ${radius} of the last place: no sentinel on the coverage map;${unnamed}`
      : `No public sentinel within ${radius} of the last place: not being heard there says little.`;
  }
  const sentences = [`Within ${radius} of the last place: ${count} public sentinel${count === 1 ? "" : "s"}, ${hearing(coverage.listening, count)} now.${unnamed}`];
  for (const s of coverage.sentinels) {
    if (s.notListening.length) sentences.push(`${s.name}: not listening ${s.notListening.map(gapText).join(", ")}.`);
  }
  if (coverage.missingSince && sentences.length === 1) sentences.push("All of them listened while the bike was missing.");
  return sentences.join(" ");
}

/** "21 Nov 2026, 21:05–23:40", the end's date only when it is another day; "… until now" while it lasts. */
function gapText(gap) {
  if (!gap.until) return `since ${absolute(gap.from)}`;
  const from = new Date(gap.from), until = new Date(gap.until);
  const sameDay = from.toDateString() === until.toDateString();
  return `${absolute(gap.from)}–${sameDay ? until.toLocaleTimeString(undefined, { timeStyle: "short" }) : absolute(gap.until)}`;
}
