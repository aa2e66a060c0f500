#!/usr/bin/env python3
"""The sentinel's own memory with a city's missing list (#36, goal 5: a Pi Zero's budget is 20 MB).

Runs the real `bikebeacon sentinel --replay CAPTURE` against a small stand-in server (this script: the missing list
of N bikes, gzipped when asked, ETag and 304 as the real server; sightings accepted) once with an empty list and
once with each N, and reads the sentinel's VmRSS, VmHWM and RssAnon from /proc every 10 ms until it exits. RssAnon is
the sentinel's own memory; the rest of its RSS is clean pages of its binary and the Swift libraries, shared and dropped by
the kernel when memory is short (about 23 MB on x86-64, whatever the list). The stand-in is
used so that the list's size is the only thing that changes between runs; the real server's list is the same JSON
(`scripts/bench-server --city` measures its bytes). Prints one row per list size and the ratio to the empty list.

Usage: sentinel-memory.py --bin .build/release/bikebeacon --capture Resources/captures/govee-h5100.btsnoop [--bikes 10000]
"""
import argparse
import gzip
import http.server
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid

# A tag heard in the bundled capture (the demo's bike), so the run also reports sightings.
HEARD = ("494E5445-4C4C-495F-524F-434B535F4857", 20596, 25984)
MAKES = [("Gazelle", "Ultimate C8"), ("Brompton", "C Line"), ("VanMoof", "S3"), ("Cube", "Kathmandu"), ("Trek", "FX 3")]
COLOURS = ["black", "racing green", "grey", "blue", "red", "white"]


def missing_list(bikes, seed=36):
    rng = random.Random(seed)
    beacons = [{"uuid": HEARD[0], "major": HEARD[1], "minor": HEARD[2],
                "description": {"make": "Gazelle", "model": "Ultimate", "colour": "green"}}]
    for n in range(bikes):
        make, model = rng.choice(MAKES)
        beacons.append({"uuid": str(uuid.UUID(int=rng.getrandbits(128))).upper(), "major": n % 65536, "minor": rng.randrange(65536),
                        "description": {"make": make, "model": model, "colour": rng.choice(COLOURS)}})
    return json.dumps({"version": 7, "beacons": beacons}).encode()


def serve(body):
    packed = gzip.compress(body, 6)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            gzipped = "gzip" in (self.headers.get("Accept-Encoding") or "")
            tag = '"v7-gzip"' if gzipped else '"v7"'
            if self.headers.get("If-None-Match") in ('"v7"', '"v7-gzip"'):
                self.send_response(304)
                self.send_header("ETag", tag)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = packed if gzipped else body
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("ETag", tag)
            if gzipped:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            items = json.loads(self.rfile.read(length) or b"{}").get("sightings", [])
            data = json.dumps({"accepted": len(items), "duplicates": 0, "rejected": []}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, len(body), len(packed)


def status_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def run(args, bikes):
    server, plain, packed = serve(missing_list(bikes))
    state = tempfile.mkdtemp(prefix="sentinel-memory-")
    log_path = os.path.join(state, "sentinel.log")
    with open(log_path, "w") as log:
        child = subprocess.Popen([args.bin, "sentinel", "--replay", args.capture, "--server-url", f"http://127.0.0.1:{server.server_port}",
                                  "--token", "bbs_memory", "--state-directory", state, "--drain-timeout", "20"],
                                 stdout=log, stderr=subprocess.STDOUT)
        peak = rss_with_list = anon_peak = 0
        listed_at = None
        while child.poll() is None:
            hwm = status_kb(child.pid, "VmHWM")
            rss = status_kb(child.pid, "VmRSS")
            anon_peak = max(anon_peak, status_kb(child.pid, "RssAnon") or 0)
            if hwm:
                peak = max(peak, hwm)
            if listed_at is None:
                with open(log_path) as text:
                    if "missing list updated" in text.read():
                        listed_at = time.monotonic()
            if listed_at is not None and rss:
                rss_with_list = max(rss_with_list, rss)
            time.sleep(0.01)
    server.shutdown()
    with open(log_path) as text:
        logged = text.read()
    if child.returncode != 0 or "missing list updated" not in logged:
        sys.exit(f"sentinel-memory: the sentinel exited {child.returncode} with {bikes} bikes listed; its log:\n{logged[-3000:]}")
    sightings = logged.count("[Sentinel] sighting")
    return {"bikes": bikes, "plain": plain, "packed": packed, "peak_kb": peak, "rss_listed_kb": rss_with_list, "anon_peak_kb": anon_peak, "sightings": sightings}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--capture", required=True)
    parser.add_argument("--bikes", default="10000", help="comma-separated list sizes, besides the empty list")
    args = parser.parse_args()
    rows = [run(args, 0)] + [run(args, int(n)) for n in args.bikes.split(",")]
    base = rows[0]
    print("bikes listed | list bytes plain / gzip | sentinel peak RSS (VmHWM) | RSS once the list is held | peak ÷ empty list | own memory (RssAnon) peak | ÷ empty list | sightings logged")
    for row in rows:
        print(f"{row['bikes'] + 1} | {row['plain']} / {row['packed']} | {row['peak_kb'] / 1024:.1f} MB | {row['rss_listed_kb'] / 1024:.1f} MB"
              f" | {row['peak_kb'] / base['peak_kb']:.2f} | {row['anon_peak_kb'] / 1024:.1f} MB | {row['anon_peak_kb'] / base['anon_peak_kb']:.2f}"
              f" | {row['sightings']}")


if __name__ == "__main__":
    main()
