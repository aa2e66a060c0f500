#!/usr/bin/env python3
"""The web dashboard in real headless Chromium, driven over the DevTools protocol.

Starts bikebeacon-server on a loopback port with a fresh SQLite database, enrols a sentinel,
then, as an owner would in the browser: signs up (after a refused attempt whose error must
appear next to the password field), adds a bike with the keyboard, marks it missing, opens its
sightings, watches a sighting posted with the sentinel token appear without a reload, edits
the bike, sets a webhook, exports CSV and GeoJSON, and checks the page at 390 px and 1280 px.
Screenshots go to the artifacts folder.

Usage: dashboard_test.py --server PATH/bikebeacon-server [--artifacts DIR] [--chromium PATH]
Exit status 0 when every check passed; each failed check is printed.
"""
import argparse
import asyncio
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

import websockets

BEACON = {"uuid": "494E5445-4C4C-495F-524F-434B535F4857", "major": 20596, "minor": 25984}


class Checks:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def expect(self, condition, what):
        if condition:
            self.passed += 1
            print(f"  ok    {what}")
        else:
            self.failures.append(what)
            print(f"  FAIL  {what}")


class DevTools:
    """A minimal DevTools-protocol client for one page: commands and their replies."""

    def __init__(self, socket_):
        self.socket = socket_
        self.next_id = 0
        self.pending = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self):
        async for text in self.socket:
            message = json.loads(text)
            if "id" in message and message["id"] in self.pending:
                self.pending.pop(message["id"]).set_result(message)

    async def send(self, method, **params):
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        await self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def js(self, expression):
        """Evaluates an expression in the page (awaiting promises) and returns its value."""
        result = await self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error in {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression, timeout=10.0):
        """Polls until the expression is truthy; returns its value, or None on timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = await self.js(expression)
            if value:
                return value
            await asyncio.sleep(0.1)
        return None

    async def type_into(self, selector, text):
        """Focuses a field and types into it as keyboard input (input events, not a value assignment)."""
        await self.js(f"document.querySelector({json.dumps(selector)}).focus()")
        await self.js(f"document.querySelector({json.dumps(selector)}).select && document.querySelector({json.dumps(selector)}).select()")
        await self.send("Input.insertText", text=text)

    async def key(self, key):
        """Presses and releases a key as the keyboard would (Enter submits forms and presses buttons)."""
        params = {"key": key, "code": key, "windowsVirtualKeyCode": {"Enter": 13, "Tab": 9}.get(key, 0)}
        await self.send("Input.dispatchKeyEvent", type="keyDown", text="\r" if key == "Enter" else "", **params)
        await self.send("Input.dispatchKeyEvent", type="keyUp", **params)

    async def viewport(self, width, height, mobile):
        await self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)

    async def screenshot(self, path):
        height = await self.js("Math.ceil(document.documentElement.scrollHeight)")
        width = await self.js("window.innerWidth")
        shot = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                               clip={"x": 0, "y": 0, "width": width, "height": min(height, 4000), "scale": 1})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read() or b"null")


def wait_healthy(base, process, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"bikebeacon-server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("bikebeacon-server did not become healthy")


async def open_page(chromium, profile):
    port = free_port()
    browser = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--no-default-browser-check", f"--remote-debugging-port={port}",
                                f"--user-data-dir={profile}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=1) as response:
                pages = [t for t in json.loads(response.read()) if t["type"] == "page"]
            if pages:
                break
        except OSError:
            pass
        if time.monotonic() > deadline or browser.poll() is not None:
            raise RuntimeError("chromium did not start its DevTools endpoint")
        await asyncio.sleep(0.2)
    connection = await websockets.connect(pages[0]["webSocketDebuggerUrl"], max_size=64 * 1024 * 1024)
    return browser, DevTools(connection)


def check_static_files(base, checks):
    with urllib.request.urlopen(base + "/", timeout=5) as response:
        headers = response.headers
    checks.expect(headers.get("Content-Type", "").startswith("text/html"), "/ is served as HTML")
    policy = headers.get("Content-Security-Policy", "")
    checks.expect("default-src 'self'" in policy, f"the page may only load from and call its own origin ({policy!r})")
    for path in ["/dashboard/missing.js", "/dashboard/..%2FPackage.swift", "/dashboard/%2e%2e"]:
        try:
            urllib.request.urlopen(base + path, timeout=5)
            status = 200
        except urllib.error.HTTPError as error:
            status = error.code
        checks.expect(status == 404, f"{path} is not found ({status})")


async def scenario(page, base, server, database, downloads, artifacts, checks):
    check_static_files(base, checks)
    await page.send("Page.enable")
    await page.send("Runtime.enable")
    await page.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=downloads, eventsEnabled=True)
    await page.viewport(1280, 900, False)
    await page.send("Page.navigate", url=base + "/")
    checks.expect(await page.wait_for("document.readyState === 'complete' && !document.getElementById('auth').hidden"),
                  "the dashboard loads at / and shows log-in and sign-up")
    unlabelled = await page.js("""[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter(e => !(e.id && document.querySelector(`label[for="${e.id}"]`))).map(e => e.name)""")
    checks.expect(unlabelled == [], f"every form field has a label (unlabelled: {unlabelled})")
    await page.key("Tab")
    checks.expect(await page.js("document.activeElement.id") == "login-email", "Tab from the top of the page reaches the first field")

    email = f"ann-{uuid.uuid4().hex[:6]}@example.org"
    await page.type_into("#signup-email", email)
    await page.type_into("#signup-password", "short")
    await page.key("Enter")
    error = await page.wait_for("document.getElementById('signup-password-error').textContent")
    checks.expect(error and "8 characters" in error, f"a short password is refused next to the password field ({error!r})")
    checks.expect(await page.js("document.getElementById('signup-password').getAttribute('aria-invalid') === 'true'"),
                  "the refused field is marked invalid for screen readers")

    await page.type_into("#signup-password", "correct horse battery")
    await page.key("Enter")
    checks.expect(await page.wait_for("!document.getElementById('app').hidden"), "signing up logs in and shows the dashboard")
    checks.expect(await page.js("document.getElementById('who-email').textContent") == email, "the account's email is shown")
    checks.expect(await page.wait_for("document.getElementById('live').textContent === 'live: connected'"),
                  "the live event stream connects")
    await page.js("window.__noReload = true")

    await page.type_into("#bike-name", "Red commuter")
    await page.type_into("#bike-make", "Brompton")
    await page.type_into("#bike-model", "C Line")
    await page.js("document.getElementById('bike-colour').value = 'red'")
    await page.type_into("#bike-frameNumber", "WDB123456")
    await page.type_into("#bike-uuid", "not-a-uuid")
    await page.type_into("#bike-major", str(BEACON["major"]))
    await page.type_into("#bike-minor", str(BEACON["minor"]))
    await page.key("Enter")
    error = await page.wait_for("document.getElementById('bike-uuid-error').textContent")
    checks.expect(error and "UUID" in error, f"a malformed UUID is refused next to the UUID field ({error!r})")
    await page.type_into("#bike-uuid", BEACON["uuid"].lower())
    await page.key("Enter")
    checks.expect(await page.wait_for("document.querySelectorAll('#bikes li').length === 1"), "the bike appears in the list")
    card = await page.js("document.querySelector('#bikes li').innerText")
    checks.expect(card and "Red commuter" in card and "Brompton C Line" in card and "WDB123456" in card
                  and f"{BEACON['uuid']}:{BEACON['major']}:{BEACON['minor']}" in card and "OK" in card,
                  f"the bike card shows name, make, model, frame and beacon ({card!r})")

    await page.type_into("#bike-name", "Blue spare")
    await page.type_into("#bike-uuid", BEACON["uuid"])
    await page.type_into("#bike-major", str(BEACON["major"]))
    await page.type_into("#bike-minor", str(BEACON["minor"]))
    await page.key("Enter")
    error = await page.wait_for("document.getElementById('bike-beacon-error').textContent")
    checks.expect(error and "beacon" in error.lower(), f"the server's refusal of a beacon already in use shows next to the beacon ({error!r})")
    await page.js("document.getElementById('bike-cancel').hidden || document.getElementById('bike-cancel').click()")
    await page.js("document.getElementById('bike-form').reset()")

    await page.js("document.querySelector('#bikes [data-action=missing]').focus()")
    await page.key("Enter")
    checks.expect(await page.wait_for("document.querySelector('#bikes li .badge')?.textContent === 'MISSING'"),
                  "marking the bike missing (keyboard: Enter on the focused button) shows MISSING")

    await page.js("document.querySelector('#bikes [data-action=sightings]').click()")
    checks.expect(await page.wait_for("!document.getElementById('sightings-panel').hidden && !document.getElementById('sightings-empty').hidden"),
                  "the sightings panel opens, empty")

    token = subprocess.run([server, "sentinels", "add", "--name", "Cafe Rosa", "--latitude", "52.5200", "--longitude", "13.4050",
                            "--database", database], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    second = subprocess.run([server, "sentinels", "add", "--name", "Garage Nord", "--latitude", "52.5310", "--longitude", "13.3890",
                             "--database", database], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    sighting = {"id": str(uuid.uuid4()), **BEACON, "event": "arrived", "time": now, "firstSeen": now, "lastSeen": now,
                "rssi": -67, "distance": 2.4, "zone": "near"}
    status, reply = http("POST", base + "/v1/sightings", {"sightings": [sighting]}, token)
    checks.expect(status == 200 and reply.get("accepted") == 1, f"the sentinel's sighting is accepted ({reply})")
    checks.expect(await page.wait_for("document.querySelectorAll('#sightings tbody tr').length === 1", timeout=10),
                  "the sighting appears in the list without a reload")
    checks.expect(await page.wait_for("document.querySelector('#events li')?.textContent.includes('Red commuter arrived at Cafe Rosa')"),
                  "the live event is listed")
    row = await page.js("document.querySelector('#sightings tbody tr').innerText")
    checks.expect(row and "arrived" in row and "Cafe Rosa" in row and "near" in row and "2.4 m" in row, f"the row shows event, sentinel, zone, distance ({row!r})")
    later = {**sighting, "id": str(uuid.uuid4()), "event": "departed"}
    http("POST", base + "/v1/sightings", {"sightings": [later]}, second)
    checks.expect(await page.wait_for("document.querySelectorAll('#map circle').length === 2"),
                  "the map plots both sentinel places")
    checks.expect(await page.js("window.__noReload === true"), "the page was never reloaded")

    await page.js("document.getElementById('export-csv').click()")
    await page.js("document.getElementById('export-geojson').click()")
    csv_path = os.path.join(downloads, "Red-commuter-sightings.csv")
    geo_path = os.path.join(downloads, "Red-commuter-sightings.geojson")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (os.path.exists(csv_path) and os.path.exists(geo_path)):
        await asyncio.sleep(0.2)
    csv_text = open(csv_path).read() if os.path.exists(csv_path) else ""
    checks.expect(csv_text.count("\n") >= 3 and "Cafe Rosa" in csv_text and "Garage Nord" in csv_text,
                  f"Export CSV downloads the sightings ({len(csv_text)} bytes)")
    try:
        geo = json.load(open(geo_path))
    except (OSError, ValueError):
        geo = {}
    features = geo.get("features", [])
    checks.expect(geo.get("type") == "FeatureCollection" and len(features) == 2
                  and sorted(f["geometry"]["coordinates"][0] for f in features) == [13.389, 13.405],
                  "Export GeoJSON downloads a FeatureCollection with both places")

    await page.js("document.querySelector('#bikes [data-action=edit]').click()")
    await page.type_into("#bike-model", "P Line")
    await page.key("Enter")
    checks.expect(await page.wait_for("document.querySelector('#bikes li').innerText.includes('Brompton P Line')"), "editing the bike saves it")

    await page.type_into("#webhook-url", "ftp://nope")
    await page.key("Enter")
    checks.expect(await page.wait_for("document.getElementById('webhook-url-error').textContent"), "a non-http webhook URL is refused next to its field")
    await page.type_into("#webhook-url", "https://example.org/hook")
    await page.key("Enter")
    secret = await page.wait_for("!document.getElementById('webhook-secret').hidden && document.getElementById('webhook-secret').textContent")
    checks.expect(secret and "whsec_" in secret, "saving the webhook shows its signing secret once")

    await page.js("window.scrollTo(0, 0)")
    await page.screenshot(os.path.join(artifacts, "dashboard-1280.png"))
    await page.viewport(390, 844, True)
    await asyncio.sleep(0.3)
    overflow = await page.js("document.documentElement.scrollWidth")
    checks.expect(overflow <= 390, f"no sideways scrolling at 390 px (page is {overflow} px wide)")
    await page.screenshot(os.path.join(artifacts, "dashboard-390.png"))

    await page.js("document.querySelector('#bikes [data-action=recovered]').click()")
    checks.expect(await page.wait_for("document.querySelector('#bikes li .badge')?.textContent === 'OK'"), "marking it recovered shows OK")

    await page.js("document.getElementById('logout').click()")
    await page.wait_for("!document.getElementById('auth').hidden")
    await page.type_into("#login-email", email)
    await page.type_into("#login-password", "wrong password")
    await page.key("Enter")
    error = await page.wait_for("document.getElementById('login-password-error').textContent")
    checks.expect(error and "wrong" in error, f"a wrong password shows the server's message next to the password ({error!r})")
    await page.viewport(1280, 900, False)
    await page.screenshot(os.path.join(artifacts, "dashboard-login-1280.png"))


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="path to the bikebeacon-server executable")
    parser.add_argument("--artifacts", default="test-artifacts/dashboard")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    args = parser.parse_args()
    if not os.path.exists(args.chromium):
        print(f"dashboard test: skipped: no Chromium at {args.chromium} (scripts/setup --test installs Debian's chromium)")
        return 0
    os.makedirs(args.artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="bikebeacon-dashboard-")
    database = f"sqlite://{work}/server.sqlite"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(args.artifacts, "server.log"), "w")
    server = subprocess.Popen([args.server, "serve", "--host", "127.0.0.1", "--port", str(port), "--database", database],
                              stdout=log, stderr=subprocess.STDOUT)
    browser = None
    checks = Checks()
    try:
        wait_healthy(base, server)
        browser, page = await open_page(args.chromium, os.path.join(work, "profile"))
        downloads = os.path.join(work, "downloads")
        os.makedirs(downloads)
        await scenario(page, base, args.server, database, downloads, args.artifacts, checks)
    except Exception as error:  # a broken step ends the scenario but still reports and cleans up
        checks.expect(False, f"scenario ran to the end ({type(error).__name__}: {error})")
    finally:
        if browser:
            browser.terminate()
            browser.wait(10)
        server.terminate()
        server.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    print(f"dashboard test: {checks.passed} checks passed, {len(checks.failures)} failed; screenshots in {args.artifacts}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
