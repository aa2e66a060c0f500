// The page a sentinel's enrolment QR code leads to (/enrol#CODE, #43). The code is the URL's fragment, which the
// browser never sends: the page shows the command to run on the Pi and drops the code from the browser's history.
// It never sends the code anywhere (a code works once, and it is the Pi's). The old form, /enrol/CODE, gets the
// same page from the server, which neither echoes nor uses the code; this script says so and drops it too.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const old = location.pathname !== "/enrol";
  const code = location.hash.slice(1).trim();
  if (old) {
    $("enrol-old").hidden = false;
    $("enrol-hint").hidden = true;
  } else if (/^[A-Za-z0-9-]{4,64}$/.test(code)) {
    $("enrol-command").textContent = `sudo bikebeacon enroll ${location.origin}/enrol#${code}`;
  }
  history.replaceState(null, "", "/enrol");
})();
