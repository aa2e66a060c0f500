// "Find my tag": an owner with a home sentinel asks it which tags it hears right now and picks one
// for the bike form, instead of typing a UUID. Uses app.js's api, el and $.
"use strict";

const findTag = { sentinels: [], timer: null, sentinel: null };

async function loadHomeSentinels() {
  try {
    const { sentinels } = await api("GET", "/v1/account/sentinels");
    findTag.sentinels = sentinels;
  } catch (_) { findTag.sentinels = []; } // an older server, or offline: the feature stays hidden
  $("find-tag").hidden = findTag.sentinels.length === 0;
  $("find-tag-sentinel").replaceChildren(...findTag.sentinels.map((s) => el("option", { value: s.id, text: s.name })));
}

function findTagStatus(text) { $("find-tag-status").textContent = text; }

async function startFindTag() {
  const id = $("find-tag-sentinel").value;
  if (!id) return;
  try {
    const home = await api("POST", `/v1/sentinels/${encodeURIComponent(id)}/listen`);
    findTag.sentinel = home;
    findTagStatus(`Listening at ${home.name} for two minutes: hold the tag next to it.`);
    $("find-tag-start").hidden = true; $("find-tag-stop").hidden = false;
    clearInterval(findTag.timer);
    findTag.timer = setInterval(pollNearby, 1000);
  } catch (error) { findTagStatus(error.message); }
}

async function pollNearby() {
  const home = findTag.sentinel;
  if (!home) return;
  try {
    const nearby = await api("GET", `/v1/sentinels/${encodeURIComponent(home.id)}/nearby`);
    $("find-tag-list").replaceChildren(...nearby.beacons.map((tag) => {
      const id = `${tag.beacon.uuid}:${tag.beacon.major}:${tag.beacon.minor}`;
      return el("li", { "data-tag": id },
        el("span", { text: `${id}, ${tag.rssi} dBm${tag.bike ? ` (on ${tag.bike})` : ""}` }),
        el("button", { type: "button", class: "secondary", "aria-label": `Use tag ${id}`, text: "Use this tag",
          onclick: () => useTag(tag) }));
    }));
    if (!nearby.listeningUntil) {
      endFindTag(nearby.beacons.length ? "Done listening: pick a tag above, or listen again." : `${home.name} heard no tag. Is the tag awake and near it?`);
    } else if (nearby.beacons.length === 0) {
      findTagStatus(`Listening at ${home.name}: no tag heard yet.`);
    } else {
      findTagStatus(`Listening at ${home.name}: the loudest tag is first.`);
    }
  } catch (error) { findTagStatus(error.message); }
}

function endFindTag(text) {
  clearInterval(findTag.timer); findTag.timer = null;
  $("find-tag-start").hidden = false; $("find-tag-stop").hidden = true;
  if (text) findTagStatus(text);
}

async function stopFindTag(text) {
  const home = findTag.sentinel;
  findTag.sentinel = null;
  endFindTag(text);
  if (home) await api("DELETE", `/v1/sentinels/${encodeURIComponent(home.id)}/listen`).catch(() => {});
}

async function useTag(tag) {
  $("bike-uuid").value = tag.beacon.uuid;
  $("bike-major").value = String(tag.beacon.major);
  $("bike-minor").value = String(tag.beacon.minor);
  $("find-tag-list").replaceChildren();
  await stopFindTag(`Tag ${tag.beacon.uuid}:${tag.beacon.major}:${tag.beacon.minor} is in the form.`);
  $("bike-uuid").focus();
}

document.addEventListener("DOMContentLoaded", () => {
  $("find-tag-start").addEventListener("click", startFindTag);
  $("find-tag-stop").addEventListener("click", () => stopFindTag("Stopped."));
});
