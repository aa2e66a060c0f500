#!/usr/bin/env python3
"""Replays the ServerRequests corpus over HTTP against a real bikebeacon-server, in a loop, and
prints the server's resident memory as it goes.

Why: the fuzzing harness's own RSS grows over millions of inputs (AddressSanitizer's quarantine and
allocator caches, libFuzzer's tables), which hides whether the server's memory grows with requests.
This runs the uninstrumented server, so a growth here is the server's.

Usage: replay-over-http.py SERVER_BINARY CORPUS_DIR [REQUESTS [EVERY]]
  e.g. Fuzz/ServerRequests/replay-over-http.py .build/release/bikebeacon-server .build-fuzz/corpus/ServerRequests 600000 50000

Inputs are read as the harness reads them: a caller byte, `METHOD TARGET`, a newline, the body;
`{bike}` is the owner's bike. A successful DELETE may end the account or bike, so the owner,
bike and sentinel are made afresh after one, as the harness does. Exits 1 on any 5xx or if the
server dies.
"""
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

server_binary, corpus = sys.argv[1], sys.argv[2]
total = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000
every = int(sys.argv[4]) if len(sys.argv) > 4 else 20_000
TOKEN_CHARS = set(b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def read_corpus():
    requests = []
    for name in sorted(os.listdir(corpus)):
        with open(os.path.join(corpus, name), "rb") as f:
            data = f.read()
        if not data:
            continue
        line, _, body = data[1:].partition(b"\n")
        method, space, target = line.partition(b" ")
        if not space or not method or not set(method) <= TOKEN_CHARS:
            continue
        if not target.startswith(b"/") or not all(0x21 <= c <= 0x7E for c in target):
            continue
        if target.split(b"?")[0].split(b"/") in ([b"", b"v1", b"events"], [b"", b"v1", b"events", b""]):
            continue  # the event stream is endless by design; the harness skips it too
        requests.append((("anonymous", "owner", "sentinel")[data[0] % 3], method.decode(), target.decode(), body))
    return requests


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, folder):
        self.port = free_port()
        self.database = f"sqlite://{folder}/bikebeacon.sqlite"
        self.process = subprocess.Popen(
            [server_binary, "serve", "--port", str(self.port), "--database", self.database,
             "--bcrypt-cost", "4", "--sentinel-rate", "1000000", "--new-tag-hold", "0"],
            stdout=subprocess.DEVNULL, stderr=open(f"{folder}/server.log", "w"))
        self.connection = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.reconnect()
                self.connection.request("GET", "/v1/missing")
                self.connection.getresponse().read()
                return
            except OSError:
                time.sleep(0.1)
        sys.exit(f"the server did not start; see {folder}/server.log")

    def reconnect(self):
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def call(self, method, path, headers=None, body=b""):
        for _ in range(3):
            try:
                self.connection.request(method, path, body=body or None, headers=headers or {})
                response = self.connection.getresponse()
                return response.status, response.read()
            except (http.client.HTTPException, OSError):
                if self.process.poll() is not None:
                    sys.exit(f"the server died (exit {self.process.returncode}) on {method} {path}")
                self.reconnect()  # the server closed the connection, as it may after a refusal
        return 0, b""

    def rss_mb(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def identities(server, serial):
    """An owner's token, a sentinel's token and a missing bike, made through the API like the harness's."""
    json_type = {"Content-Type": "application/json"}
    login = json.dumps({"email": f"replay-{serial}@example.com", "password": "correct horse battery"}).encode()
    # Sign-ups are limited per client; from loopback the server believes X-Forwarded-For, so each identity is
    # a client of its own, while the corpus's sign-ups (without the header) share 127.0.0.1's allowance.
    client = f"10.{serial >> 16 & 255}.{serial >> 8 & 255}.{serial & 255}"
    server.call("POST", "/v1/accounts", dict(json_type, **{"X-Forwarded-For": client}), login)
    token = json.loads(server.call("POST", "/v1/sessions", json_type, login)[1])["token"]
    owner = dict(json_type, Authorization=f"Bearer {token}")
    bike = {"name": "Commuter", "make": "Brompton", "colour": "racing green", "frameNumber": "BR123",
            "beacon": {"uuid": "B5B182C7-EAB1-4988-AA99-B5C1517008D9", "major": 1, "minor": (25626 + serial) % 65536}}
    bike_id = json.loads(server.call("POST", "/v1/bikes", owner, json.dumps(bike).encode())[1])["id"]
    server.call("POST", f"/v1/bikes/{bike_id}/missing", owner)
    enrolled = subprocess.run([server_binary, "sentinels", "add", "--name", f"replay-{serial}", "--latitude", "52.09",
                               "--longitude", "5.12", "--database", server.database],
                              capture_output=True, text=True, check=True)
    return {"owner": token, "sentinel": enrolled.stdout.strip().splitlines()[-1]}, bike_id


def main():
    requests = read_corpus()
    if not requests:
        sys.exit(f"no requests in {corpus}")
    folder = tempfile.mkdtemp(prefix="bikebeacon-replay-")
    server = Server(folder)
    serial = 0
    tokens, bike_id = identities(server, serial)
    statuses, failures = {}, 0
    start = time.monotonic()
    print(f"{len(requests)} requests in the corpus, {total} to send", flush=True)

    def report(n):
        counts = " ".join(f"{k}xx {v}" for k, v in sorted(statuses.items()))
        print(f"{n:>9} requests {time.monotonic() - start:8.1f} s   server RSS {server.rss_mb():6.1f} MB   {counts}", flush=True)

    for n in range(total):
        if n % every == 0:
            report(n)
        caller, method, target, body = requests[n % len(requests)]
        headers = {"Authorization": f"Bearer {tokens[caller]}"} if caller in tokens else {}
        if body:
            headers["Content-Type"] = "application/json"
        status, answer = server.call(method, target.replace("{bike}", bike_id), headers, body)
        statuses[status // 100] = statuses.get(status // 100, 0) + 1
        if status >= 500 or status == 0:
            failures += 1
            print(f"server answered {status} to {method} {target} as {caller}: {answer[:200]!r}", flush=True)
        if method == "DELETE" and 200 <= status < 300:
            serial += 1
            tokens, bike_id = identities(server, serial)
    report(total)
    server.process.terminate()
    server.process.wait()
    shutil.rmtree(folder)
    sys.exit(1 if failures else 0)


main()
