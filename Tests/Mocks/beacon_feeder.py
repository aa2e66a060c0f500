#!/usr/bin/python3
"""Plays a capture's iBeacon reports into python-dbusmock's bluez5 template, in a loop, for the soak.

Usage: beacon_feeder.py REPORTS.jsonl ADAPTER SPEED
REPORTS.jsonl is `bikebeacon replay --json CAPTURE`: each report becomes a ManufacturerData and RSSI
change on one mock device per beacon (as BlueZ emits them), spaced as in the capture divided by SPEED.
When the mock goes away (the soak kills it) the feeder waits for org.bluez, adds the adapter and the
devices again, and carries on; it prints one line per (re)start and a count every minute.
"""

import json
import os
import sys
import time

import dbus

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bluez_mock_control as mock  # noqa: E402


def address_for(index):
    return "C4:7C:8D:6A:10:%02X" % index


def manufacturer_hex(report):
    power = report["measuredPower"] if report["measuredPower"] is not None else -59
    body = bytes.fromhex(report["uuid"].replace("-", "")) + report["major"].to_bytes(2, "big") + report["minor"].to_bytes(2, "big")
    return "0x004C:0215" + body.hex() + (power & 0xFF).to_bytes(1, "big").hex()


def set_up(adapter, beacons):
    """Adapter and one device per beacon, unless they exist already."""
    mock.wait_bluez()
    paths = set(str(path) for path in mock.obj("/").GetManagedObjects(dbus_interface=mock.OBJECT_MANAGER))
    if "/org/bluez/" + adapter not in paths:
        mock.main(["", "add-adapter", adapter])
    for index, (beacon, report) in enumerate(beacons.items()):
        if mock.device_path(adapter, address_for(index)) in paths:
            continue
        mock.add_device(adapter, address_for(index), report["rssi"], [manufacturer_hex(report)])
    print("feeder: adapter %s and %d beacons announced" % (adapter, len(beacons)), flush=True)


def main(path, adapter, speed):
    reports = [json.loads(line) for line in open(path) if line.strip()]
    if not reports:
        sys.exit("feeder: %s holds no iBeacon reports" % path)
    beacons = {}
    for report in reports:
        beacons.setdefault((report["uuid"], report["major"], report["minor"]), report)
    index = {beacon: i for i, beacon in enumerate(beacons)}
    sent, last_note = 0, time.monotonic()
    ready = False
    while True:
        previous = reports[0]["time"]
        for report in reports:
            time.sleep(max(0.0, report["time"] - previous) / speed)
            previous = report["time"]
            beacon = (report["uuid"], report["major"], report["minor"])
            address = address_for(index[beacon])
            try:
                if not ready:
                    set_up(adapter, beacons)
                    ready = True
                mock.main(["", "set-manufacturer-data", adapter, address, manufacturer_hex(report)])
                mock.main(["", "set-rssi", adapter, address, str(report["rssi"])])
                sent += 1
            except (dbus.exceptions.DBusException, SystemExit, OSError) as error:
                if ready:
                    print("feeder: the mock went away (%s); waiting for it" % str(error).splitlines()[0], flush=True)
                ready = False
                time.sleep(1)
            if time.monotonic() - last_note >= 60:
                print("feeder: %d reports played" % sent, flush=True)
                last_note = time.monotonic()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]))
