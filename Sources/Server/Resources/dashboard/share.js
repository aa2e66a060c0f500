// The shared page (/s/TOKEN): reads /v1/shared/TOKEN without an account and follows it live.
// Every piece of server data reaches the page through textContent, never as HTML.
"use strict";

const token = location.pathname.split("/").pop();
/** Often enough that a new sighting shows within 2 s of the sentinel's report. */
const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

function item(list, term, value) {
  if (!value) return;
  const dt = document.createElement("dt"); dt.textContent = term;
  const dd = document.createElement("dd"); dd.textContent = value;
  list.append(dt, dd);
}

function render(bike) {
  document.title = `${bike.name} · shared bike · bikebeacon`;
  $("bike-name").textContent = bike.name;
  $("bike-status").textContent = bike.missing ? `MISSING since ${absolute(bike.missingSince)}` : "Not reported missing";
  $("bike-status").className = "badge" + (bike.missing ? " missing" : "");
  const details = $("bike-details"); details.replaceChildren();
  item(details, "Make", bike.make); item(details, "Model", bike.model); item(details, "Colour", bike.colour);
  item(details, "Frame number", bike.frameNumber); item(details, "Engine number", bike.engineNumber);
  $("bike-notes").hidden = !bike.notes; $("bike-notes").textContent = bike.notes || "";
  $("share-expiry").textContent = `This link works until ${absolute(bike.expiresAt)}.`;
  const newest = bike.sightings[0];
  $("last-seen").textContent = newest ? `Last seen ${ago(newest.time)} ${newest.place} (${newest.zone}${newest.distance == null ? "" : `, ~${newest.distance.toFixed(0)} m`})` +
    (bike.estimate ? `. Most likely ${bike.estimate.words}.` : "") : "Not seen by any sentinel yet.";
  $("coverage").textContent = coverageText(bike.coverage);
  const visits = trailVisits(bike.sightings);
  drawTrail($("trail"), visits);
  $("trail-caption").textContent = visits.length ? `${visits.length} visit${visits.length === 1 ? "" : "s"}, numbered in time order; north is up.` : "";
  $("timeline").replaceChildren(...visits.map((v) => {
    const li = document.createElement("li");
    const minutes = Math.round((new Date(v.departed) - new Date(v.arrived)) / 60000);
    li.textContent = `${v.place}: ${absolute(v.arrived)} → ${absolute(v.departed)} (${minutes} min, ${v.count} sighting${v.count === 1 ? "" : "s"})`;
    return li;
  }));
  $("timeline-empty").hidden = visits.length > 0;
  $("timeline").dataset.sightings = String(bike.sightings.length);
}

async function poll() {
  try {
    const response = await fetch(`/v1/shared/${encodeURIComponent(token)}`, { cache: "no-store" });
    if (response.status === 410 || response.status === 404) {
      const body = await response.json().catch(() => ({}));
      $("share-error").textContent = body.message || "This share link no longer works.";
      $("live").textContent = "live: ended"; $("live").classList.remove("on");
      return;
    }
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    render(await response.json());
    $("share-error").textContent = "";
    $("live").textContent = "live: on"; $("live").classList.add("on");
  } catch (error) {
    $("live").textContent = "live: reconnecting"; $("live").classList.remove("on");
  }
  setTimeout(poll, POLL_MS);
}

poll();
