#!/usr/bin/env python3
"""Web Push end to end, checked by independent implementations.

Starts bikebeacon-server (--allow-private-targets, so a push endpoint on loopback over plain
http is allowed) and a small push service on loopback that records what it receives. An owner
subscribes twice with key pairs made here; a sentinel posts a sighting of the missing bike. Each
push must arrive within 5 s, exactly once per subscription, decrypt with PyPI `http-ece`
(RFC 8291 aes128gcm) to the notification JSON, and carry a VAPID JWT whose ES256 signature,
aud, exp and sub check out with `cryptography`. Then: a second event in the window sends
nothing; a 410 deletes the subscription; with the push service down and the server restarted,
the push arrives once both are back. Last, a bike's date whose reminder is due is pushed once.

--bench N instead measures notification latency (sighting POST sent → push POST received at the
endpoint) over N sightings, p50 and p99, with webhook delivery through the same queue as the
baseline measured in the same run.

Usage: push_test.py --server PATH/bikebeacon-server --database URL [--bench N]
Exit status 0 when every check passed; each failed check is printed.
"""
import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

BEACON = {"uuid": "B5B182C7-EAB1-4988-AA99-B5C1517008D9", "major": 1, "minor": 25626}
SUBJECT = "mailto:push-test@example.org"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Checks:
    def __init__(self):
        self.failures = []

    def expect(self, condition, what):
        print(f"  {'ok  ' if condition else 'FAIL'}  {what}", flush=True)
        if not condition:
            self.failures.append(what)
        return condition


class PushService:
    """A push service on loopback: records every POST with its arrival time; answers per path."""

    def __init__(self, port):
        self.port = port
        self.received = []
        self.status = {}  # path → status to answer (default 201)
        self.lock = threading.Lock()
        self.server = None

    def start(self):
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with service.lock:
                    service.received.append({"time": time.monotonic(), "path": self.path,
                                             "headers": dict(self.headers.items()), "body": body})
                    status = service.status.get(self.path, 201)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def calls(self, path=None):
        with self.lock:
            return [r for r in self.received if path is None or r["path"] == path]

    def wait(self, count, path=None, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.calls(path)) >= count:
                return True
            time.sleep(0.01)
        return len(self.calls(path)) >= count


class Server:
    """bikebeacon-server serve on a free loopback port, on the given database."""

    def __init__(self, binary, database, workdir, extra=()):
        self.binary, self.database, self.workdir, self.extra = binary, database, workdir, list(extra)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None

    def start(self):
        log = open(os.path.join(self.workdir, "server.log"), "a")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--database", self.database, "--bcrypt-cost", "4",
             "--sentinel-rate", "100000", "--allow-private-targets", "--vapid-subject", SUBJECT,
             # The test marks a bike missing right after registering it; the server suite tests the hold on new tags.
             "--new-tag-hold", "0", *self.extra],
            stdout=log, stderr=subprocess.STDOUT)
        for _ in range(200):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=1)
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        raise RuntimeError("bikebeacon-server did not start; see server.log")

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def call(self, method, path, body=None, token=None):
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


def enrol(binary, database, name, latitude, longitude):
    output = subprocess.run([binary, "sentinels", "add", "--name", name, "--latitude", str(latitude),
                             "--longitude", str(longitude), "--database", database],
                            check=True, capture_output=True, text=True).stdout
    return output.strip().splitlines()[-1]


def sighting(event):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {"id": str(uuid.uuid4()), **BEACON, "event": event, "time": now, "firstSeen": now, "lastSeen": now,
            "rssi": -64, "distance": 1.8, "zone": "near"}


def new_subscription(endpoint):
    """What a browser's PushSubscription.toJSON() holds, and the private half to decrypt with."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    auth = os.urandom(16)
    return private, auth, {"endpoint": endpoint, "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}


def verify_vapid(checks, headers, server_key, audience):
    authorization = headers.get("Authorization", "")
    checks.expect(authorization.startswith("vapid t="), f"Authorization is 'vapid t=…, k=…': {authorization[:40]}")
    fields = dict(part.strip().split("=", 1) for part in authorization[len("vapid "):].split(","))
    checks.expect(fields.get("k") == server_key, "k= is the key from GET /v1/push/key")
    header64, claims64, signature64 = fields["t"].split(".")
    header = json.loads(unb64url(header64))
    claims = json.loads(unb64url(claims64))
    checks.expect(header.get("alg") == "ES256", f"JWT header alg ES256: {header}")
    signature = unb64url(signature64)
    checks.expect(len(signature) == 64, "signature is raw r ‖ s (64 bytes)")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(server_key))
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, f"{header64}.{claims64}".encode(), ec.ECDSA(hashes.SHA256()))
        checks.expect(True, "ES256 signature verifies with cryptography")
    except InvalidSignature:
        checks.expect(False, "ES256 signature verifies with cryptography")
    now = time.time()
    checks.expect(claims.get("aud") == audience, f"aud is the endpoint's origin: {claims.get('aud')}")
    checks.expect(now < claims.get("exp", 0) <= now + 24 * 3600, f"exp within 24 h: {claims.get('exp')}")
    checks.expect(claims.get("sub") == SUBJECT, f"sub is the operator's contact: {claims.get('sub')}")


def decrypt(record, private, auth):
    return json.loads(http_ece.decrypt(record["body"], private_key=private, auth_secret=auth, version="aes128gcm"))


def setup_owner(server, binary, database, places):
    status, _ = server.call("POST", "/v1/accounts", {"email": "ana@example.org", "password": "correct horse battery"})
    _, session = server.call("POST", "/v1/sessions", {"email": "ana@example.org", "password": "correct horse battery"})
    owner = session["token"]
    _, bike = server.call("POST", "/v1/bikes", {"name": "Ana's commuter", "make": "Gazelle", "model": "Ultimate",
                                                "colour": "blue", "frameNumber": "GZ1", "notes": "", "beacon": BEACON}, owner)
    server.call("POST", f"/v1/bikes/{bike['id']}/missing", None, owner)
    return owner, bike


def end_to_end(args, work):
    checks = Checks()
    binary, database = args.server, args.database
    sentinels = {name: enrol(binary, database, name, lat, lon) for name, lat, lon in
                 [("Cafe Rosa", 52.0907, 5.1214), ("Station", 52.0894, 5.1100), ("Market", 52.0920, 5.1190)]}
    push = PushService(free_port())
    push.start()
    server = Server(binary, database, work)
    server.start()
    try:
        owner, bike = setup_owner(server, binary, database, sentinels)
        status, key = server.call("GET", "/v1/push/key")
        checks.expect(status == 200 and len(unb64url(key["publicKey"])) == 65, "GET /v1/push/key without a token")
        subscriptions = []
        for n in (1, 2):
            private, auth, body = new_subscription(f"http://127.0.0.1:{push.port}/push/{n}")
            status, created = server.call("POST", "/v1/push/subscriptions", body, owner)
            checks.expect(status == 201 and created.get("id"), f"subscription {n} → 201 {{id}}")
            subscriptions.append((f"/push/{n}", private, auth, created.get("id")))

        print("a sighting posted by a sentinel: one decryptable push per subscription within 5 s", flush=True)
        sent = time.monotonic()
        status, result = server.call("POST", "/v1/sightings",
                                     {"sightings": [sighting("arrived"), sighting("present")]}, sentinels["Cafe Rosa"])
        checks.expect(status == 200 and result["accepted"] == 2, f"sightings accepted: {result}")
        for path, private, auth, _ in subscriptions:
            arrived = push.wait(1, path, timeout=5)
            checks.expect(arrived, f"{path}: push arrived within 5 s")
            if not arrived:
                continue
            record = push.calls(path)[0]
            checks.expect(record["time"] - sent < 5, f"{path}: {1000 * (record['time'] - sent):.0f} ms after the sighting POST")
            headers = record["headers"]
            checks.expect(headers.get("Content-Encoding") == "aes128gcm", "Content-Encoding: aes128gcm")
            checks.expect(headers.get("Urgency") == "high", "Urgency: high")
            checks.expect(int(headers.get("TTL", "0")) > 0, f"TTL: {headers.get('TTL')}")
            verify_vapid(checks, headers, key["publicKey"], f"http://127.0.0.1:{push.port}")
            payload = decrypt(record, private, auth)
            checks.expect(len(json.dumps(payload)) <= 3072, "payload ≤ 3 KB")
            checks.expect(payload.get("event") == "arrived" and payload.get("bikeId") == bike["id"]
                          and payload.get("bikeName") == "Ana's commuter" and payload.get("place") == "Cafe Rosa"
                          and abs(payload.get("latitude", 0) - 52.0907) < 1e-9 and payload.get("zone") == "near"
                          and payload.get("time", "").endswith("Z"), f"decrypted with http-ece: {payload}")

        print("the same bike and place again within the window: no second push", flush=True)
        server.call("POST", "/v1/sightings", {"sightings": [sighting("departed"), sighting("arrived")]}, sentinels["Cafe Rosa"])
        time.sleep(2)
        checks.expect([len(push.calls(p)) for p, *_ in subscriptions] == [1, 1], "still exactly one push per subscription")

        print("a push service answering 410: the subscription is deleted", flush=True)
        push.status["/push/2"] = 410
        server.call("POST", "/v1/sightings", {"sightings": [sighting("arrived")]}, sentinels["Station"])
        checks.expect(push.wait(2, "/push/1") and push.wait(2, "/push/2"), "both subscriptions got the Station push")
        time.sleep(0.5)
        _, listed = server.call("GET", "/v1/push/subscriptions", None, owner)
        checks.expect([s["id"] for s in listed["subscriptions"]] == [subscriptions[0][3]], "the 410 subscription is gone")

        print("push service down and the server restarted: delivered once both are back", flush=True)
        push.stop()
        server.call("POST", "/v1/sightings", {"sightings": [sighting("arrived")]}, sentinels["Market"])
        time.sleep(1.5)
        server.stop()
        push.start()
        server.start()
        checks.expect(push.wait(3, "/push/1", timeout=40), "the Market push arrived after the outage")
        payload = decrypt(push.calls("/push/1")[-1], subscriptions[0][1], subscriptions[0][2])
        checks.expect(payload.get("place") == "Market", f"and it is the Market sighting: {payload.get('place')}")
        time.sleep(1)
        checks.expect(len(push.calls("/push/1")) == 3, "delivered once, not again")

        print("a bike's date whose reminder is due: one push, decrypted to the reminder", flush=True)
        due = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 2 * 86400))
        sent = time.monotonic()
        status, date = server.call("POST", f"/v1/bikes/{bike['id']}/dates",
                                   {"name": "Insurance renewal", "due": due, "remindDaysBefore": 7, "timeZone": "Europe/Amsterdam"}, owner)
        checks.expect(status == 201 and date.get("reminder") == "scheduled", f"date added: {status} {date}")
        arrived = push.wait(4, "/push/1", timeout=5)
        checks.expect(arrived, f"the reminder push arrived within 5 s ({1000 * (time.monotonic() - sent):.0f} ms)")
        if arrived:
            payload = decrypt(push.calls("/push/1")[-1], subscriptions[0][1], subscriptions[0][2])
            checks.expect(payload.get("event") == "reminder" and payload.get("dateName") == "Insurance renewal"
                          and payload.get("due") == due and payload.get("bikeName") == "Ana's commuter",
                          f"decrypted with http-ece: {payload}")
        time.sleep(1.5)
        checks.expect(len(push.calls("/push/1")) == 4, "the reminder is pushed once")
        _, dates = server.call("GET", f"/v1/bikes/{bike['id']}/dates", None, owner)
        checks.expect([d.get("reminder") for d in dates.get("dates", [])] == ["sent"], f"and listed as sent: {dates}")
    finally:
        server.stop()
        try:
            push.stop()
        except Exception:
            pass
    return checks


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def bench(args, work):
    binary, database = args.server, args.database
    sentinel = enrol(binary, database, "Bench", 52.0, 5.0)
    push = PushService(free_port())
    push.start()
    # Every event notifies (no window), so each sighting is one push and one webhook.
    server = Server(binary, database, work, ["--notify-interval", "0"])
    server.start()
    try:
        owner, _ = setup_owner(server, binary, database, [])
        _, _, body = new_subscription(f"http://127.0.0.1:{push.port}/push/bench")
        server.call("POST", "/v1/push/subscriptions", body, owner)
        server.call("PUT", "/v1/account/webhook", {"url": f"http://127.0.0.1:{push.port}/hook"}, owner)
        latencies = {"/push/bench": [], "/hook": []}
        for n in range(args.bench):
            sent = time.monotonic()
            server.call("POST", "/v1/sightings", {"sightings": [sighting("arrived" if n % 2 == 0 else "departed")]}, sentinel)
            for path in latencies:
                if not push.wait(n + 1, path, timeout=10):
                    raise RuntimeError(f"{path}: delivery {n + 1} did not arrive within 10 s")
                latencies[path].append(1000 * (push.calls(path)[n]["time"] - sent))
        push_ms, hook_ms = latencies["/push/bench"], latencies["/hook"]
        print(f"notification latency over {args.bench} sightings (sighting POST sent → POST received at the endpoint), {database.split(':')[0]}")
        print(f"  push     p50 {percentile(push_ms, 50):7.1f} ms   p99 {percentile(push_ms, 99):7.1f} ms   max {max(push_ms):7.1f} ms")
        print(f"  webhook  p50 {percentile(hook_ms, 50):7.1f} ms   p99 {percentile(hook_ms, 99):7.1f} ms   (baseline: same queue, no encryption)")
        print(f"  push/webhook p50 ratio {percentile(push_ms, 50) / percentile(hook_ms, 50):.2f}")
    finally:
        server.stop()
        push.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--bench", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bikebeacon-push-") as work:
        if args.bench:
            bench(args, work)
            return 0
        print(f"push test on {args.database.split(':')[0]}", flush=True)
        checks = end_to_end(args, work)
        if checks.failures:
            print(f"{len(checks.failures)} check(s) failed; server log:", file=sys.stderr)
            with open(os.path.join(work, "server.log")) as log:
                sys.stderr.write(log.read()[-4000:])
            return 1
        print("push test: every check passed")
        return 0


if __name__ == "__main__":
    sys.exit(main())
