// bikebeacon's service worker: the offline shell, the owner's last loaded data, and push notifications.
// Served at /sw.js so that its scope is the whole dashboard.
"use strict";

const SHELL = "bikebeacon-shell-v1";
/** The owner's bikes and sightings as last loaded; the page deletes it on log-out. */
const DATA = "bikebeacon-data";
const SHELL_FILES = ["/", "/dashboard/app.js", "/dashboard/trail.js", "/dashboard/lostmode.js", "/dashboard/dates.js", "/dashboard/findtag.js", "/dashboard/sentinelmap.js", "/dashboard/network.js", "/dashboard/coveragemap.js", "/dashboard/style.css", "/dashboard/config.json", "/dashboard/manifest.webmanifest",
  "/dashboard/icon.svg", "/dashboard/icon-192.png", "/leaflet/leaflet.js", "/leaflet/leaflet.css"];
/** Set on a response answered from the cache: when it was fetched, so the page can say how old it is. */
const CACHED_AT = "X-Bikebeacon-Cached-At";

self.addEventListener("install", (event) => {
  // One by one, so a server without Leaflet still gets an offline shell.
  event.waitUntil(caches.open(SHELL).then((cache) => Promise.all(SHELL_FILES.map((path) =>
    fetch(path, { cache: "no-cache" }).then((response) => response.ok ? cache.put(path, stamped(response)) : null).catch(() => null))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== SHELL && name !== DATA).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

/** The owner's readable data: the bikes and a bike's sightings, dates and coverage, the coverage map (not exports, not the live stream). */
function isOwnerData(url) {
  return url.pathname === "/v1/bikes" || url.pathname === "/v1/account" || url.pathname === "/v1/account/notifications"
    || url.pathname === "/v1/network/coverage"
    || (/^\/v1\/bikes\/[^/]+\/(sightings|dates|coverage)$/.test(url.pathname) && !url.searchParams.has("format"));
}

function isShell(url) {
  return url.pathname === "/" || url.pathname.startsWith("/dashboard/") || url.pathname.startsWith("/leaflet/");
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (isShell(url)) event.respondWith(networkFirst(request, SHELL, url.pathname === "/" ? "/" : request));
  else if (isOwnerData(url)) event.respondWith(networkFirst(request, DATA, request));
});

/** The network's answer, kept for later; without a network, the kept one, marked with when it was fetched. */
async function networkFirst(request, cacheName, key) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const cache = await caches.open(cacheName);
      await cache.put(key, stamped(response.clone()));
    }
    return response;
  } catch (error) {
    const cached = await caches.match(key, { cacheName, ignoreSearch: key === "/" });
    if (cached) return cached;
    throw error;
  }
}

function stamped(response) {
  const headers = new Headers(response.headers);
  headers.set(CACHED_AT, new Date().toISOString());
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

// ---- push notifications ----

/** The sentence an owner reads on the lock screen, e.g. "Ana's commuter was seen at Cafe Rosa, Utrecht". */
function notificationText(push) {
  const bike = push.bikeName || "Your bike";
  const place = push.place || "a sentinel";
  const title = {
    departed: `${bike} left ${place}`,
    recovered: `${bike} was marked recovered`,
    reminder: `${bike}: ${push.dateName || "a date"} is due on ${push.due || "a day you set"}`,
    missingEnding: `${bike} leaves the missing list on ${push.due || "a day soon"} unless you renew it`,
    missingEnded: `${bike} is no longer on the missing list: it was not renewed`,
    sentinelDown: `Your sentinel ${place} stopped listening`,
    sentinelUp: `Your sentinel ${place} is listening again`,
    found: `Someone found ${bike} and wrote to you`,
    reviewStarted: `${bike}'s sightings are on hold for a review`,
    reviewReleased: `The review of ${bike} is over: its sightings are yours again`,
    reviewClosed: `The review of ${bike} is closed: it stays off the missing list`,
  }[push.event] || `${bike} was seen at ${place}`;
  if (push.event === "reminder") return { title, body: "Open the bike to change the date or its reminder" };
  if (push.event === "missingEnding" || push.event === "missingEnded") {
    return { title, body: "If it is still missing, mark it missing again on the bike's page" };
  }
  if (push.event === "sentinelDown") return { title, body: push.reason || "Check its power and network" };
  if (push.event === "sentinelUp") return { title, body: "It hears the street again" };
  // Plain text: the finder's words are never markup here.
  if (push.event.startsWith("review")) return { title, body: [push.message, push.contact && `Operator: ${push.contact}`].filter(Boolean).join(" · ") };
  if (push.event === "found") return { title, body: [push.message, push.contact && `Contact: ${push.contact}`].filter(Boolean).join(" · ") };
  const time = push.time ? new Date(push.time) : null;
  const parts = [];
  if (push.count > 1) parts.push(`${push.count} events`);
  if (push.zone) parts.push(`${push.zone} the sentinel`);
  if (time && !isNaN(time)) parts.push(time.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
  parts.push("open to see it on the map");
  return { title, body: parts.join(" · ") };
}

self.addEventListener("push", (event) => {
  let push = {};
  try { push = event.data ? event.data.json() : {}; } catch (_) { push = {}; }
  const { title, body } = notificationText(push);
  event.waitUntil(self.registration.showNotification(title, {
    body, icon: "/dashboard/icon-192.png", badge: "/dashboard/icon-192.png",
    tag: `bikebeacon:${push.bikeId || ""}:${push.place || ""}`, renotify: true,
    data: { bikeId: push.bikeId || null },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const bikeId = event.notification.data && event.notification.data.bikeId;
  event.waitUntil(openDashboard(bikeId));
});

/** Shows the bike in an open dashboard window when there is one, else opens the dashboard on it. */
async function openDashboard(bikeId) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (open) {
    open.postMessage({ type: "show-bike", bikeId });
    try { await open.focus(); } catch (_) { /* focusing needs the click's user activation; the bike is shown anyway */ }
    return;
  }
  await self.clients.openWindow(bikeId ? `/?bike=${encodeURIComponent(bikeId)}` : "/");
}
