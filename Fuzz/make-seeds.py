#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora from the project's real captures and fixtures.

Usage: make-seeds.py OUTDIR. Seeds are small (libFuzzer mutates small inputs faster): captures are cut
after a few whole records, H4 packets and AD payloads are taken from those captures, the RSSI CSVs
keep their first lines, and D-Bus messages are marshalled here the way BlueZ sends them.
"""
import json
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPTURES = os.path.join(ROOT, "Tests", "Fixtures", "captures")
OUT = sys.argv[1]
LIMIT = 4096


def write(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data)


def btsnoop_records(data):
    at = 16
    while at + 24 <= len(data):
        included = struct.unpack(">I", data[at + 4:at + 8])[0]
        yield at, data[at + 24:at + 24 + included], at + 24 + included
        at += 24 + included


def pcap_records(data):
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    at = 24
    while at + 16 <= len(data):
        included = struct.unpack(endian + "I", data[at + 8:at + 12])[0]
        yield at, data[at + 16:at + 16 + included], at + 16 + included
        at += 16 + included


def pcapng_records(data):
    endian = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    at = 0
    while at + 12 <= len(data):
        kind, length = struct.unpack(endian + "II", data[at:at + 8])
        if length < 12:
            return
        body = b""
        if kind == 6:
            captured = struct.unpack(endian + "I", data[at + 20:at + 24])[0]
            body = data[at + 28:at + 28 + captured]
        yield at, body, at + length
        at += length


def h4(body):
    if body[:1] == b"\x04":
        return body
    if body[4:5] == b"\x04":  # link type 201: a 4-byte direction header first
        return body[4:]
    return None


packets = []
for name in sorted(os.listdir(CAPTURES)):
    path = os.path.join(CAPTURES, name)
    if not name.endswith((".btsnoop", ".pcap", ".pcapng")):
        continue
    data = open(path, "rb").read()
    records = btsnoop_records if name.endswith(".btsnoop") else pcap_records if name.endswith(".pcap") else pcapng_records
    cut = 0
    for _, body, end in records(data):
        if end <= LIMIT:
            cut = end
        packet = h4(body)
        if packet and packet not in packets and len(packets) < 64:
            packets.append(packet)
    write("Captures", name, data[:cut or LIMIT])

for i, packet in enumerate(packets):
    write("HCI", "packet-%02d" % i, packet)
    # A legacy LE Advertising Report: its first report's AD bytes.
    if len(packet) > 14 and packet[1] == 0x3E and packet[3] == 0x02:
        length = packet[13]
        write("Beacon", "ad-%02d" % i, packet[14:14 + length])

for folder in ("philotuxo", "rssi/herald", "rssi/pcng"):
    directory = os.path.join(ROOT, "Tests", "Fixtures", folder)
    for name in sorted(os.listdir(directory)):
        if name.endswith(".csv"):
            lines = open(os.path.join(directory, name), "rb").read().splitlines(keepends=True)[:40]
            write("RSSITrace", name, b"".join(lines))

# `bikebeacon locate`'s two files, RECEIVERS.csv NUL READINGS.csv, from the philotuxo fixture: the
# sensors' places (with a calibration on every other one), then the first readings with the truth
# (read again as TRUTH.csv, as `--truth` can).
philotuxo = open(os.path.join(ROOT, "Tests", "Fixtures", "philotuxo", "straight_04-all-sensors.csv")).read().splitlines()
header = philotuxo[0].split(",")
rows = [dict(zip(header, line.split(","))) for line in philotuxo[1:]]
sensors = {}
for row in rows:
    sensors.setdefault(row["sensor_alias"], (row["sensor_x_m"], row["sensor_y_m"], row["sensor_z_m"]))
receivers = "id,x_m,y_m,z_m,rssi_1m,exponent\n" + "".join(
    "%s,%s,%s,%s,%s\n" % (name, x, y, z, "-59,1.6" if i % 2 == 0 else ",")
    for i, (name, (x, y, z)) in enumerate(sorted(sensors.items())))
for count in (12, 60):
    readings = "time_s,receiver,rssi_dbm,truth_x_m,truth_y_m\n" + "".join(
        "%s,%s,%s,%s,%s\n" % (row["timestamp"], row["sensor_alias"], row["rssi_dbm"], row["beacon_x_m"], row["beacon_y_m"]) for row in rows[:count])
    write("Locate", "straight_04-%d" % count, receivers.encode() + b"\0" + readings.encode())


class Wire:
    """Little-endian D-Bus marshalling, just enough for BlueZ's signals and replies."""

    def __init__(self):
        self.buf = bytearray()

    def align(self, n):
        self.buf += b"\0" * (-len(self.buf) % n)

    def byte(self, v):
        self.buf += bytes([v])

    def u32(self, v):
        self.align(4)
        self.buf += struct.pack("<I", v)

    def string(self, s):
        self.u32(len(s.encode()))
        self.buf += s.encode() + b"\0"

    def signature(self, s):
        self.byte(len(s))
        self.buf += s.encode() + b"\0"

    def array(self, element_alignment, items, write_item):
        self.u32(0)
        length_at = len(self.buf) - 4
        self.align(element_alignment)
        start = len(self.buf)
        for item in items:
            write_item(item)
        struct.pack_into("<I", self.buf, length_at, len(self.buf) - start)

    def variant(self, sig, write_value):
        self.signature(sig)
        write_value()


def message(kind, fields, body, serial=7):
    w = Wire()
    w.buf += b"l" + bytes([kind, 0, 1]) + struct.pack("<II", len(body), serial)

    def field(item):
        code, sig, value = item
        w.align(8)
        w.byte(code)
        w.variant(sig, lambda: w.u32(value) if sig == "u" else w.signature(value) if sig == "g" else w.string(value))

    w.array(8, fields, field)
    w.align(8)
    return bytes(w.buf) + body


def device_properties(w, manufacturer):
    def entry(item):
        key, write_value = item
        w.align(8)
        w.string(key)
        write_value()

    def rssi():
        w.signature("n")
        w.align(2)
        w.buf += struct.pack("<h", -61)

    def data():
        w.signature("a{qv}")

        def company(_):
            w.align(8)
            w.align(2)
            w.buf += struct.pack("<H", 0x004C)
            w.signature("ay")
            w.u32(len(manufacturer))
            w.buf += manufacturer

        w.array(8, [0], company)

    def address():
        w.signature("s")
        w.string("AA:BB:CC:DD:EE:FF")

    w.array(8, [("Address", address), ("RSSI", rssi), ("ManufacturerData", data)], entry)


ibeacon = bytes.fromhex("0215e2c56db5dffb48d2b060d0f5a71096e000010002c5")
path = "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"

body = Wire()
body.string("org.bluez.Device1")
device_properties(body, ibeacon)
body.array(4, [], None)
write("DBus", "properties-changed", message(4, [(1, "o", path), (2, "s", "org.freedesktop.DBus.Properties"),
                                                (3, "s", "PropertiesChanged"), (7, "s", ":1.5"), (8, "g", "sa{sv}as")],
                                            bytes(body.buf)))

body = Wire()
body.string(path)  # an object path marshals as a string
body.array(8, ["org.bluez.Device1"], lambda name: (body.align(8), body.string(name), device_properties(body, ibeacon)))
write("DBus", "interfaces-added", message(4, [(1, "o", "/"), (2, "s", "org.freedesktop.DBus.ObjectManager"),
                                              (3, "s", "InterfacesAdded"), (7, "s", ":1.5"), (8, "g", "oa{sa{sv}}")],
                                          bytes(body.buf)))
write("DBus", "method-return", message(2, [(5, "u", 3), (7, "s", ":1.5")], b""))
body = Wire()
body.string("Operation already in progress")
write("DBus", "error", message(3, [(4, "s", "org.bluez.Error.InProgress"), (5, "u", 4), (8, "g", "s")], bytes(body.buf)))

for name, text in [("utc", "2026-03-01T12:34:56Z"), ("millis", "2026-03-01T12:34:56.789Z"),
                   ("offset", "2024-02-29T23:59:59.5+01:00"), ("negative", "1969-12-31T23:59:59-00:30"),
                   ("lower", "2026-03-01t12:34:56z")]:
    write("Timestamp", name, text.encode())

for name, hexbytes in [("connack", "20020000"), ("suback", "9003000101"), ("puback", "40020001"),
                       ("pingresp", "d000"), ("publish", "301000097465737420746f7069636f6e"),
                       ("publish-qos1", "32110009746573742f746f706963000170"), ("stream", "20020000d00040020001")]:
    write("MQTT", name, bytes.fromhex(hexbytes))

for name, text in [("greeting", "220 mail.example.org ESMTP ready\r\n"),
                   ("ehlo", "250-mail.example.org\r\n250-PIPELINING\r\n250-STARTTLS\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n"),
                   ("refused", "550 5.1.1 no such user\r\n"), ("bare", "354\n")]:
    write("SMTP", name, text.encode())

# The missing list as the server sends it (full, then deltas; 0x1E between bodies), with the design
# notes' real beacon identities.
beacons = [("B5B182C7-EAB1-4988-AA99-B5C1517008D9", 1, 25626), ("426C7565-4368-6172-6D42-6561636F6E73", 3838, 4949),
           ("494E5445-4C4C-495F-524F-434B535F4857", 20597, 62207)]


def missing_beacon(i):
    uuid, major, minor = beacons[i]
    return {"uuid": uuid, "major": major, "minor": minor,
            "description": {"make": "Brompton", "model": "C Line", "colour": "racing green", "frameNumber": "BR12%d" % i}}


full = json.dumps({"version": 7, "beacons": [missing_beacon(0), missing_beacon(1)]}).encode()
delta = json.dumps({"since": 7, "version": 9, "added": [missing_beacon(2)],
                    "removed": [{"uuid": beacons[0][0], "major": beacons[0][1], "minor": beacons[0][2]}]}).encode()
write("MissingList", "full", full)
write("MissingList", "full-then-delta", full + b"\x1e" + delta)
write("MissingList", "empty", json.dumps({"version": 0, "beacons": []}).encode())

# The sentinel's config: the shipped example, and smaller ones in the shapes the tests use.
# gpsd's own JSON output (Tests/Fixtures/gpsd): a session start, no fix, a walk cut to a few reports.
GPSD = os.path.join(ROOT, "Tests", "Fixtures", "gpsd")
for name in ("session-start.json", "bu303-nofix.json", "bu303-moving.json", "haicom-305N.json"):
    write("GPSD", name, open(os.path.join(GPSD, name), "rb").read()[:LIMIT])

write("SentinelConfig", "example.yaml", open(os.path.join(ROOT, "deploy", "sentinel.example.yaml"), "rb").read())
write("SentinelConfig", "minimal.yaml", b"server:\n  url: http://127.0.0.1:8080\n  token: s3cret\nstateDirectory: /tmp/state\n")
write("SentinelConfig", "flow.yaml", b"{server: {url: 'https://b.example', token: t}, ownBikes: [{name: a, beacon: "
      b"'B5B182C7-EAB1-4988-AA99-B5C1517008D9:1:25626'}], metrics: {port: 9100}}\n")
write("SentinelConfig", "anchors.yaml", b"defaults: &d\n  timeout: 5\nserver:\n  <<: *d\n  url: \"http://x\"\n  token: >-\n    folded\n")

# The strict reader alone: the config seeds, and what it must refuse.
for name in ("example.yaml", "minimal.yaml", "flow.yaml", "anchors.yaml"):
    write("StrictYAML", name, open(os.path.join(OUT, "SentinelConfig", name), "rb").read())
write("StrictYAML", "quoted.yaml", b"a: 'it''s'\nb: \"tab\\there \\u00e9\"\nc: [1, {d: e}, \"f\"]\n- oops\n")
write("StrictYAML", "nested.yaml", b"a:\n  - b:\n      - [c, [d, [e]]]\n  - ~\n" + b"x: " + b"[" * 70 + b"]" * 70 + b"\n")

# Requests to the server: caller byte (0 anonymous, 1 owner, 2 sentinel), `METHOD TARGET`, newline, body.
sighting = {"id": "s-1", "uuid": beacons[0][0], "major": 1, "minor": 25626, "event": "arrived",
            "time": "2026-11-21T10:00:00Z", "firstSeen": "2026-11-21T10:00:00Z", "lastSeen": "2026-11-21T10:00:00Z",
            "rssi": -67, "distance": 2.5, "zone": "near"}
bike = {"name": "Commuter", "make": "Brompton", "model": "C Line", "colour": "racing green", "frameNumber": "BR123",
        "beacon": {"uuid": beacons[1][0], "major": beacons[1][1], "minor": beacons[1][2]}}
requests = [
    (2, "POST /v1/sightings", {"sightings": [sighting, dict(sighting, id="s-2", event="left", distance=None)]}),
    (2, "GET /v1/missing", None),
    (2, "GET /v1/missing?since=1", None),
    (0, "POST /v1/accounts", {"email": "ana@example.com", "password": "correct horse battery"}),
    (0, "POST /v1/sessions", {"email": "ana@example.com", "password": "correct horse battery"}),
    (1, "POST /v1/bikes", bike),
    (1, "PATCH /v1/bikes/{bike}", {"notes": "bell on the left", "colour": "blue"}),
    (1, "GET /v1/bikes/{bike}/sightings?limit=5&format=csv", None),
    (1, "GET /v1/bikes/{bike}/sightings?cursor=abc&limit=2", None),
    (1, "POST /v1/bikes/{bike}/recovered", None),
    (1, "PUT /v1/account/webhook", {"url": "https://hooks.example.com/bike", "secret": "0123456789abcdef"}),
    (1, "PUT /v1/account/notifications", {"push": True, "email": False}),
    (1, "POST /v1/push/subscriptions", {"endpoint": "https://push.example.com/x", "keys": {"p256dh": "BAAA", "auth": "AAAA"}}),
    (1, "GET /v1/account/export", None),
    (1, "GET /v1/account/sessions", None),
    (0, "POST /v1/password-reset", {"email": "ana@example.com"}),
    (0, "POST /v1/password-reset/confirm", {"token": "x", "password": "another horse battery"}),
    (0, "GET /healthz", None),
]
for i, (caller, line, body) in enumerate(requests):
    write("ServerRequests", "request-%02d" % i, bytes([caller]) + line.encode() + b"\n" + (json.dumps(body).encode() if body else b""))
