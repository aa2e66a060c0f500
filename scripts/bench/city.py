#!/usr/bin/env python3
"""A city's load on one bikebeacon-server, open loop (run by `scripts/bench-server --city`).

  seed   10 000 owners with a missing bike each, share links for 100 of them, over HTTP; writes a JSON state
  load   S sentinels: GET /v1/missing with If-None-Match (+ Bikebeacon-Heartbeat) once a minute each, spread evenly;
         O owners' /v1/events streams held open; R sightings/s in batches; bike pages; share pages without an account;
         with --probe-rate, sightings POSTed to one replica (--probe-post-port) timed to the event on an owner's
         stream held on another (--probe-stream-port); and bad input beside it: --slow-clients (each sends a request
         head a byte every --slow-interval seconds), --aborted-uploads a second (sighting POSTs whose body stops halfway:
         half close the connection, half stall), --storm streams opened at once 2 s into the level (after a restart)

Open loop: every request has a scheduled time and is sent then whatever the earlier ones did, and its
latency is measured from that scheduled time, so a server that falls behind shows it (no coordinated
omission). Sentinels and page loads open a connection per request (a Pi polling once a minute keeps
none open); streams hold theirs. The generator's own lag (actual start − scheduled) is reported too:
when it is large, the figures measure the generator, not the server.
"""
import argparse
import asyncio
import gc
import json
import os
import random
import resource
import socket
import sys
import time
import uuid

HEARTBEAT = json.dumps({
    "version": "0.1.0", "uptimeSeconds": 3600, "backend": "dbus", "adapterPresent": True, "adapterPowered": True,
    "scanning": True, "intervalSeconds": 60, "reports": 900, "iBeacons": 3, "lastReportAgeSeconds": 0.5,
    "missingInRange": 0, "outboxDepth": 0, "clockOffsetSeconds": 0.4, "diskFreeBytes": 10000000000,
    "diskTotalBytes": 30000000000, "pathLoss": {"calibration": "onePoint", "exponent": 1.5, "nearFieldExponent": 2}},
    separators=(",", ":"))
TIMEOUT = 10.0  # a request not answered within this counts as an error


class Source:
    """Loopback source addresses in turn (127.0.0.2, …): each has its own ephemeral port range."""

    def __init__(self, count):
        self.addresses = [f"127.0.0.{2 + n}" for n in range(count)]
        self.next = 0

    def take(self):
        address = self.addresses[self.next % len(self.addresses)]
        self.next += 1
        return address


async def connect(host, port, source):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((source.take(), 0))
    loop = asyncio.get_running_loop()
    try:
        await loop.sock_connect(sock, (host, port))
    except BaseException:
        sock.close()
        raise
    return sock


async def exchange(host, port, source, request):
    """One request on a fresh connection (Connection: close); returns (status, body bytes)."""
    loop = asyncio.get_running_loop()
    sock = await connect(host, port, source)
    try:
        await loop.sock_sendall(sock, request)
        data = bytearray()
        while True:
            chunk = await loop.sock_recv(sock, 65536)
            if not chunk:
                break
            data += chunk
        head, _, body = bytes(data).partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
        return status, body
    finally:
        sock.close()


def http(method, path, headers=None, body=b""):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body or method == "POST":
        lines.append("Content-Type: application/json")
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Recorder:
    def __init__(self):
        self.latency = {}   # route → [ms]
        self.errors = {}    # route → {what: count}
        self.lag = []       # ms the generator started late

    def ok(self, route, ms):
        self.latency.setdefault(route, []).append(ms)

    def error(self, route, what, ms=None):
        self.errors.setdefault(route, {})
        self.errors[route][what] = self.errors[route].get(what, 0) + 1
        if ms is not None:
            self.latency.setdefault(route, []).append(ms)


async def timed(recorder, route, scheduled, host, port, source, request, expect):
    start = time.monotonic()
    recorder.lag.append((start - scheduled) * 1000)
    try:
        status, _ = await asyncio.wait_for(exchange(host, port, source, request), TIMEOUT)
    except asyncio.TimeoutError:
        recorder.error(route, "timeout", (time.monotonic() - scheduled) * 1000)
        return
    except OSError as error:
        recorder.error(route, type(error).__name__, (time.monotonic() - scheduled) * 1000)
        return
    ms = (time.monotonic() - scheduled) * 1000
    if status in expect:
        recorder.ok(route, ms)
    else:
        recorder.error(route, f"HTTP {status}", ms)


class Stream(asyncio.Protocol):
    """An owner's open /v1/events: counts events; a close the generator did not ask for is an error."""

    def __init__(self, city, request):
        self.city, self.request, self.buffer, self.started = city, request, b"", False
        self.transport = None
        self.closing = False

    def connection_made(self, transport):
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data):
        if not self.started:
            self.buffer += data
            if b"\r\n\r\n" not in self.buffer:
                return
            if not self.buffer.startswith(b"HTTP/1.1 200"):
                self.city.recorder.error("GET /v1/events", "HTTP " + self.buffer[9:12].decode(errors="replace"))
                self.closing = True
                self.transport.close()
                return
            self.started = True
            self.city.open_streams += 1
            data, self.buffer = self.buffer, b""
        self.city.events += data.count(b"event: sighting")

    def connection_lost(self, exc):
        if self.started:
            self.city.open_streams -= 1
        if not self.closing and self.city.running:
            self.city.recorder.error("GET /v1/events", "stream closed by the server")


class ProbeStream(asyncio.Protocol):
    """A probe owner's /v1/events on the other replica: the time each sighting event arrives."""

    def __init__(self, request):
        self.request, self.buffer, self.started, self.waiter = request, b"", False, None
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data):
        self.buffer += data
        if not self.started:
            if b"\r\n\r\n" not in self.buffer:
                return
            self.started = self.buffer.startswith(b"HTTP/1.1 200")
            self.buffer = self.buffer.partition(b"\r\n\r\n")[2]
        if b"event: sighting" in self.buffer:
            self.buffer = b""
            if self.waiter and not self.waiter.done():
                self.waiter.set_result(time.monotonic())


class City:
    def __init__(self, args, state):
        self.args, self.state = args, state
        self.host, self.port = "127.0.0.1", args.port
        self.source = Source(args.sources)
        self.recorder = Recorder()
        self.open_streams = 0
        self.events = 0
        self.running = True
        self.streams = []
        self.tasks = set()
        self.slow_held = 0     # slow clients the server still held when the level ended
        self.aborted_held = 0  # stalled uploads the server still held when the level ended

    def spawn(self, coroutine):
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def open_streams_at(self, count, rate):
        """Opens `count` streams at `rate` a second (open loop); the time to the 200 is the route's latency."""
        loop = asyncio.get_running_loop()
        owners = self.state["owners"]
        start = time.monotonic()
        for n in range(count):
            scheduled = start + n / rate
            delay = scheduled - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            owner = owners[n % len(owners)]
            request = http("GET", getattr(self.args, "path", "/v1/events"),
                           {"Authorization": f"Bearer {owner['token']}", "Accept": "text/event-stream"})
            self.spawn(self.open_stream(loop, request, scheduled))

    async def open_stream(self, loop, request, scheduled):
        route = "GET /v1/events (open)"
        try:
            sock = await asyncio.wait_for(connect(self.host, self.port, self.source), TIMEOUT)
            transport, stream = await loop.create_connection(lambda: Stream(self, request), sock=sock)
            self.streams.append(stream)
            while not stream.started and not stream.closing and time.monotonic() - scheduled < TIMEOUT:
                await asyncio.sleep(0.005)
            if stream.started:
                self.recorder.ok(route, (time.monotonic() - scheduled) * 1000)
            elif not stream.closing:
                self.recorder.error(route, "timeout")
        except (OSError, asyncio.TimeoutError) as error:
            self.recorder.error(route, type(error).__name__)

    def close_streams(self):
        for stream in self.streams:
            stream.closing = True
            if stream.transport:
                stream.transport.close()

    async def schedule(self, name, rate, duration, make):
        """Requests at `rate` a second, evenly spaced, for `duration` seconds; `make(n)` gives (request, expect)."""
        if rate <= 0:
            return
        start = time.monotonic()
        count = int(rate * duration)
        offset = random.random() / rate
        for n in range(count):
            scheduled = start + offset + n / rate
            delay = scheduled - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            request, expect, route = make(n)
            self.spawn(timed(self.recorder, route, scheduled, self.host, self.port, self.source, request, expect))

    def sentinel_poll(self, n):
        tokens = self.state["sentinels"]
        headers = {"Authorization": f"Bearer {tokens[n % len(tokens)]}", "If-None-Match": self.state["etag"]}
        route = "GET /v1/missing 304"
        if self.args.heartbeat:
            headers["Bikebeacon-Heartbeat"] = HEARTBEAT
            route += " + heartbeat"
        # As HTTPMissingListSource asks: the version held and its tag.
        version = self.state["etag"].strip('"').lstrip("v")
        return http("GET", f"/v1/missing?since={version}", headers), (304,), route

    def sighting_batch(self, n):
        tokens, bikes = self.state["sentinels"], self.state["beacons"]
        now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z"
        items = []
        for _ in range(self.args.batch):
            uuid_text, major, minor = random.choice(bikes)
            items.append({"id": str(uuid.uuid4()), "uuid": uuid_text, "major": major, "minor": minor, "event": "arrived",
                          "time": now, "firstSeen": now, "lastSeen": now, "rssi": -60, "distance": 1.5, "zone": "near"})
        body = json.dumps({"sightings": items}).encode()
        return (http("POST", "/v1/sightings", {"Authorization": f"Bearer {random.choice(tokens)}"}, body), (200,),
                "POST /v1/sightings")

    def bike_page(self, n):
        owner = random.choice(self.state["owners"])
        bike = random.choice(owner["bikes"])
        path = f"/v1/bikes/{bike}/sightings?limit=50" if n % 2 else f"/v1/bikes/{bike}"
        route = "GET /v1/bikes/{id}/sightings" if n % 2 else "GET /v1/bikes/{id}"
        return http("GET", path, {"Authorization": f"Bearer {owner['token']}"}), (200,), route

    def share_page(self, n):
        token = random.choice(self.state["shares"])
        path, route = (f"/s/{token}", "GET /s/{token}") if n % 2 else (f"/v1/shared/{token}", "GET /v1/shared/{token}")
        return http("GET", path), (200,), route

    async def open_probes(self, owners):
        """One stream per probe owner, straight to the replica that is not posted to."""
        loop = asyncio.get_running_loop()
        self.probes = []
        for owner in owners:
            request = http("GET", "/v1/events", {"Authorization": f"Bearer {owner['token']}", "Accept": "text/event-stream"})
            sock = await connect(self.host, self.args.probe_stream_port, self.source)
            _, stream = await loop.create_connection(lambda: ProbeStream(request), sock=sock)
            self.probes.append(stream)
        for _ in range(int(TIMEOUT / 0.05)):
            if all(stream.started for stream in self.probes):
                return
            await asyncio.sleep(0.05)
        sys.exit("the probe streams did not open")

    async def probe(self, n, beacons, scheduled):
        """A sighting of probe owner n's bike POSTed to one replica; its latency is until the event reaches the owner's
        stream on the other, from the scheduled time."""
        route = "event: POST on A → stream on B"
        stream = self.probes[n % len(self.probes)]
        stream.waiter = asyncio.get_running_loop().create_future()
        uuid_text, major, minor = beacons[n % len(beacons)]
        now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z"
        body = json.dumps({"sightings": [{"id": str(uuid.uuid4()), "uuid": uuid_text, "major": major, "minor": minor,
                                          "event": "arrived", "time": now, "firstSeen": now, "lastSeen": now, "rssi": -60,
                                          "distance": 1.5, "zone": "near"}]}).encode()
        request = http("POST", "/v1/sightings", {"Authorization": f"Bearer {random.choice(self.state['sentinels'])}"}, body)
        try:
            status, _ = await asyncio.wait_for(exchange(self.host, self.args.probe_post_port, self.source, request), TIMEOUT)
            if status != 200:
                self.recorder.error(route, f"HTTP {status}")
                return
            arrived = await asyncio.wait_for(stream.waiter, TIMEOUT)
            self.recorder.ok(route, (arrived - scheduled) * 1000)
        except (OSError, asyncio.TimeoutError) as error:
            self.recorder.error(route, type(error).__name__)

    async def probes_at(self, rate, duration, beacons):
        if rate <= 0:
            return
        start = time.monotonic()
        for n in range(int(rate * duration)):
            scheduled = start + n / rate
            delay = scheduled - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self.spawn(self.probe(n, beacons, scheduled))


    async def slow_client(self, n):
        """A request head trickled a byte at a time (slowloris), connecting again whenever the server closes it:
        the route's latency is how long the server kept each connection."""
        route = "slow client (bad input)"
        loop = asyncio.get_running_loop()
        head = http("GET", "/v1/missing", {"Authorization": "Bearer bbs_slow", "X-Padding": "x" * 4096})
        await asyncio.sleep(random.random() * self.args.slow_interval)
        while self.running:
            try:
                sock = await asyncio.wait_for(connect(self.host, self.port, self.source), TIMEOUT)
            except (OSError, asyncio.TimeoutError) as error:
                self.recorder.error(route, "connect " + type(error).__name__)
                await asyncio.sleep(1)
                continue
            opened = time.monotonic()
            try:
                for byte in head:
                    if not self.running:
                        self.slow_held += 1
                        return
                    await loop.sock_sendall(sock, bytes([byte]))
                    await asyncio.sleep(self.args.slow_interval)
                    # The server closing shows as end-of-file (or a reset) before the next byte.
                    try:
                        if sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                            raise ConnectionResetError()
                    except BlockingIOError:
                        pass
            except OSError:
                self.recorder.ok(route, (time.monotonic() - opened) * 1000)
            finally:
                sock.close()

    async def aborted_upload(self, n, scheduled):
        """A sighting batch whose body stops halfway: every other one closes the connection, the rest stall."""
        route = "aborted upload, closed (bad input)" if n % 2 else "aborted upload, stalled (bad input)"
        body = json.dumps({"sightings": [{"id": str(uuid.uuid4()), "uuid": "B5B182C7-EAB1-4988-AA99-B5C1517008D9",
                                          "major": 1, "minor": m, "event": "arrived", "time": "2026-11-26T00:00:00Z",
                                          "firstSeen": "2026-11-26T00:00:00Z", "lastSeen": "2026-11-26T00:00:00Z",
                                          "rssi": -60, "zone": "near"} for m in range(40)]}).encode()
        request = http("POST", "/v1/sightings", {"Authorization": f"Bearer {random.choice(self.state['sentinels'])}"}, body)
        loop = asyncio.get_running_loop()
        try:
            sock = await asyncio.wait_for(connect(self.host, self.port, self.source), TIMEOUT)
        except (OSError, asyncio.TimeoutError) as error:
            self.recorder.error(route, "connect " + type(error).__name__)
            return
        started = time.monotonic()
        try:
            await loop.sock_sendall(sock, request[: len(request) - len(body) // 2])
            if n % 2:
                self.recorder.ok(route, (time.monotonic() - scheduled) * 1000)  # sent, then closed
                return
            while self.running:
                try:
                    if await asyncio.wait_for(loop.sock_recv(sock, 65536), 1) == b"":
                        self.recorder.ok(route, (time.monotonic() - started) * 1000)  # the server gave up after this long
                        return
                except asyncio.TimeoutError:
                    continue
            self.aborted_held += 1
        except OSError:
            self.recorder.ok(route, (time.monotonic() - started) * 1000)
        finally:
            sock.close()

    async def bad_input(self, duration):
        args = self.args
        for n in range(args.slow_clients):
            self.spawn(self.slow_client(n))
        if args.storm:
            await asyncio.sleep(2)
            self.spawn(self.open_streams_at(args.storm, 1e9))
        if args.aborted_uploads > 0:
            start = time.monotonic()
            for n in range(int(args.aborted_uploads * duration)):
                scheduled = start + n / args.aborted_uploads
                delay = scheduled - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                self.spawn(self.aborted_upload(n, scheduled))


def pids(text):
    return [int(pid) for pid in str(text).split(",") if pid]


def cpu_seconds(pid):
    """User + system seconds of a process, or of several (comma-separated: replicas, nginx) together."""
    total = 0.0
    for one in pids(pid):
        with open(f"/proc/{one}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def rss_kb(pid):
    total = 0
    for one in pids(pid):
        with open(f"/proc/{one}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def load(args):
    state = json.load(open(args.state))
    state["sentinels"] = [line.strip() for line in open(args.tokens) if line.strip()][:args.sentinels]
    state["etag"] = args.etag
    state["shares"] = [owner["share"] for owner in state["owners"] if "share" in owner]
    if len(state["sentinels"]) < args.sentinels:
        sys.exit(f"only {len(state['sentinels'])} sentinel tokens in {args.tokens}")
    probe_owners, probe_beacons = [], []
    if args.probe_rate > 0:
        # The last owners' bikes are the probe's alone: no load sighting wakes their streams.
        count = args.probe_owners
        probe_owners, probe_beacons = state["owners"][-count:], state["beacons"][-count:]
        state["beacons"] = state["beacons"][:-count]
    city = City(args, state)
    gc.disable()  # the collector's pauses would show up as latency of the generator, not the server
    if probe_owners:
        await city.open_probes(probe_owners)
    rss0 = rss_kb(args.server_pid)
    if args.streams:
        await city.open_streams_at(args.streams, args.stream_rate)
        for _ in range(int(TIMEOUT / 0.1) + 1):
            if len(city.tasks) == 0:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(2)
    rss_streams = rss_kb(args.server_pid)
    cpu_before, mine_before, wall = cpu_seconds(args.server_pid), time.process_time(), time.monotonic()
    events_before = city.events
    await asyncio.gather(
        city.schedule("sentinels", args.sentinels / 60, args.duration, city.sentinel_poll),
        city.schedule("sightings", args.sighting_rate / args.batch, args.duration, city.sighting_batch),
        city.schedule("bike pages", args.bike_pages, args.duration, city.bike_page),
        city.schedule("share pages", args.share_pages, args.duration, city.share_page),
        city.probes_at(args.probe_rate, args.duration, probe_beacons),
        city.bad_input(args.duration),
        asyncio.sleep(args.duration))
    city.running = False  # the bad input stops; the requests still out are awaited
    for _ in range(int(TIMEOUT / 0.1) + 1):
        if not city.tasks:
            break
        await asyncio.sleep(0.1)
    elapsed = time.monotonic() - wall
    server_cpu = (cpu_seconds(args.server_pid) - cpu_before) / elapsed
    mine = (time.process_time() - mine_before) / elapsed
    rss_end = rss_kb(args.server_pid)
    still_open = city.open_streams
    city.running = False
    city.close_streams()
    result = {
        "sentinels": args.sentinels, "streams": args.streams, "streams_open": still_open, "sightings_per_s": args.sighting_rate,
        "duration_s": round(elapsed, 1), "server_cpu": round(server_cpu, 3), "generator_cpu": round(mine, 3),
        "rss_kb_start": rss0, "rss_kb_streams": rss_streams, "rss_kb_end": rss_end,
        "kb_per_stream": round((rss_streams - rss0) / args.streams, 1) if args.streams else None,
        "events_received": city.events - events_before,
        "storm": args.storm, "slow_clients": args.slow_clients, "slow_held_at_end": city.slow_held,
        "aborted_uploads_per_s": args.aborted_uploads, "stalled_uploads_held_at_end": city.aborted_held,
        "generator_lag_p99_ms": round(percentile(city.recorder.lag, 99), 1),
        "routes": {},
    }
    for route in sorted(set(city.recorder.latency) | set(city.recorder.errors)):
        values = city.recorder.latency.get(route, [])
        errors = city.recorder.errors.get(route, {})
        result["routes"][route] = {"n": len(values), "p50_ms": round(percentile(values, 50), 1),
                                   "p99_ms": round(percentile(values, 99), 1), "max_ms": round(max(values), 1) if values else None,
                                   "errors": errors}
    print(json.dumps(result))


async def idle_cpu(pid, seconds):
    """The share of a core the server spends while the streams sit idle (one keep-alive period or more)."""
    before = cpu_seconds(pid)
    await asyncio.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


async def memory(args):
    """Server RSS (from /proc) with 0 open streams and then at each step, opened at --stream-rate a second,
    and the CPU it spends holding them idle (each stream's keep-alive every 15 s)."""
    state = json.load(open(args.state))
    city = City(args, state)
    rows = [{"streams": 0, "open": 0, "rss_kb": rss_kb(args.server_pid), "idle_cpu": round(await idle_cpu(args.server_pid, args.idle_seconds), 3)}]
    opened = 0
    for step in [int(n) for n in args.steps.split(",")]:
        await city.open_streams_at(step - opened, args.stream_rate)
        opened = step
        for _ in range(int(TIMEOUT / 0.1) + 1):
            if not city.tasks:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(3)
        opens = city.recorder.latency.pop("GET /v1/events (open)", [])
        rows.append({"streams": step, "open": city.open_streams, "rss_kb": rss_kb(args.server_pid),
                     "open_p50_ms": round(percentile(opens, 50), 1), "open_p99_ms": round(percentile(opens, 99), 1),
                     "idle_cpu": round(await idle_cpu(args.server_pid, args.idle_seconds), 3)})
    city.running = False
    city.close_streams()
    base = rows[0]["rss_kb"]
    for row in rows[1:]:
        row["kb_per_stream"] = round((row["rss_kb"] - base) / row["streams"], 1)
    # The server finds a closed stream at its next keep-alive or the one after (15 s each): then its memory should go back.
    await asyncio.sleep(args.after_close_seconds)
    after_close = {"rss_kb": rss_kb(args.server_pid), "seconds": args.after_close_seconds}
    print(json.dumps({"memory": rows, "after_close": after_close, "errors": city.recorder.errors}))


async def api(port, method, path, token=None, body=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = http(method, path, headers, json.dumps(body).encode() if body is not None else b"")
    status, data = await exchange("127.0.0.1", port, Source(1), request)
    if status >= 300:
        raise SystemExit(f"{method} {path} answered {status}: {data[:200]!r}")
    return json.loads(data) if data.strip() else None


async def seed(args):
    """Owners with their missing bikes, share links for the first --shares of them, 8 at a time."""
    async def owner(n):
        email, password = f"city-{n}@example.org", "benchmark password"
        await api(args.port, "POST", "/v1/accounts", body={"email": email, "password": password})
        token = (await api(args.port, "POST", "/v1/sessions", body={"email": email, "password": password}))["token"]
        bikes, beacons = [], []
        for m in range(args.bikes_per_owner):
            beacon = {"uuid": str(uuid.UUID(int=random.getrandbits(128))).upper(), "major": n % 65536, "minor": m}
            bike = await api(args.port, "POST", "/v1/bikes", token, {"name": f"bike {m}", "make": "Brompton", "model": "C Line",
                                                                     "colour": "green", "beacon": beacon})
            await api(args.port, "POST", f"/v1/bikes/{bike['id']}/missing", token)
            bikes.append(bike["id"])
            beacons.append([beacon["uuid"], beacon["major"], beacon["minor"]])
        made = {"token": token, "bikes": bikes}
        if n < args.shares:
            made["share"] = (await api(args.port, "POST", f"/v1/bikes/{bikes[0]}/shares", token, {"expiresIn": 720, "label": "city"}))["token"]
        return made, beacons

    owners, beacons = [], []
    semaphore = asyncio.Semaphore(8)

    async def limited(n):
        async with semaphore:
            return await owner(n)

    for made, its_beacons in await asyncio.gather(*(limited(n) for n in range(args.owners))):
        owners.append(made)
        beacons += its_beacons
    json.dump({"owners": owners, "beacons": beacons}, open(args.state, "w"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("seed")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--state", required=True)
    s.add_argument("--owners", type=int, default=10000)
    s.add_argument("--bikes-per-owner", type=int, default=1)
    s.add_argument("--shares", type=int, default=100)
    lo = sub.add_parser("load")
    lo.add_argument("--port", type=int, required=True)
    lo.add_argument("--server-pid", required=True, help="a pid, or several comma-separated (their RSS and CPU added)")
    lo.add_argument("--state", required=True)
    lo.add_argument("--tokens", required=True, help="sentinel tokens, one a line")
    lo.add_argument("--etag", required=True)
    lo.add_argument("--sentinels", type=int, default=10000)
    lo.add_argument("--heartbeat", action="store_true")
    lo.add_argument("--streams", type=int, default=0)
    lo.add_argument("--stream-rate", type=float, default=1000, help="streams opened a second before the measurement")
    lo.add_argument("--sighting-rate", type=float, default=100)
    lo.add_argument("--batch", type=int, default=10)
    lo.add_argument("--bike-pages", type=float, default=5, help="owner bike-page requests a second")
    lo.add_argument("--share-pages", type=float, default=5, help="share-page requests a second")
    lo.add_argument("--duration", type=float, default=60)
    lo.add_argument("--sources", type=int, default=4, help="loopback source addresses 127.0.0.2…")
    lo.add_argument("--probe-rate", type=float, default=0, help="cross-replica probes a second (0: none)")
    lo.add_argument("--probe-post-port", type=int, help="the replica the probe's sightings are POSTed to")
    lo.add_argument("--probe-stream-port", type=int, help="the replica the probe owners' streams are held on")
    lo.add_argument("--probe-owners", type=int, default=20)
    lo.add_argument("--slow-clients", type=int, default=0, help="connections trickling a request head (bad input)")
    lo.add_argument("--slow-interval", type=float, default=5, help="seconds between a slow client's bytes")
    lo.add_argument("--aborted-uploads", type=float, default=0, help="sighting POSTs a second whose body stops halfway")
    lo.add_argument("--storm", type=int, default=0, help="streams opened at once 2 s into the level (a restart's reconnections)")
    m = sub.add_parser("memory")
    m.add_argument("--port", type=int, required=True)
    m.add_argument("--server-pid", required=True, help="a pid, or several comma-separated (their RSS and CPU added)")
    m.add_argument("--state", required=True)
    m.add_argument("--steps", default="5000,10000,19000")
    m.add_argument("--stream-rate", type=float, default=1000)
    m.add_argument("--sources", type=int, default=4)
    m.add_argument("--idle-seconds", type=float, default=30)
    m.add_argument("--path", default="/v1/events", help="/bare-stream for bikebeacon-bench bare-http's baseline")
    m.add_argument("--after-close-seconds", type=float, default=35, help="wait after closing the streams, then read RSS again")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run({"seed": seed, "load": load, "memory": memory}[args.command](args))


if __name__ == "__main__":
    main()
