#!/usr/bin/env python3
"""Tables of `scripts/bench-server --city`: server memory per open stream, and each load level per route."""
import json
import sys


def rows(path):
    try:
        lines = open(path).read().splitlines()
    except FileNotFoundError:
        return []
    return [(line.split(" ", 1)[0], json.loads(line.split(" ", 1)[1])) for line in lines if line.strip()]


def table(header, body):
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *body)]
    for line in [header] + body:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)))
    print()


memory = []
for database, result in rows(sys.argv[1]):
    for step in result["memory"]:
        memory.append([database, step["streams"], step["open"], f"{step['rss_kb'] / 1024:.1f}",
                       step.get("kb_per_stream", "-"), f"{step['idle_cpu'] * 100:.1f}",
                       f"{step['open_p50_ms']}/{step['open_p99_ms']}" if step["streams"] else "-", json.dumps(result["errors"]) if step["streams"] else ""])
    if result.get("after_close", {}).get("seconds"):
        after = result["after_close"]
        memory.append([database, f"0, {after['seconds']:.0f} s after closing", "-", f"{after['rss_kb'] / 1024:.1f}", "-", "-", "-", ""])
if memory:
    table(["database", "streams", "open", "server RSS MB", "KB/stream", "idle CPU % of a core", "open p50/p99 ms", "errors"], memory)

load = []
for database, r in rows(sys.argv[2]):
    # Bad input's own rows (slow clients, aborted uploads) are not the level's routes: they say how the server treated it.
    legit = {name: route for name, route in r["routes"].items() if "bad input" not in name and "aborted upload" not in name}
    worst = max((route["p99_ms"] for route in legit.values()), default=0)
    failed = sum(sum(route["errors"].values()) for route in legit.values())
    verdict = "holds" if worst < 200 and failed == 0 and r["streams_open"] == r["streams"] + r.get("storm", 0) else "beyond"
    if verdict == "beyond" and r["generator_lag_p99_ms"] > 100:
        # Requests left late because the generator's core was busy: the figures measure the generator too.
        verdict = "unclear (the generator fell behind)"
    load.append([database, r["sentinels"], f"{r['streams_open']}/{r['streams']}", r["sightings_per_s"], "(level)",
                 "-", "-", f"{worst:.0f}", failed,
                 f"{verdict}: server {r['server_cpu'] * 100:.1f} % of a core, RSS {r['rss_kb_end'] / 1024:.0f} MB, "
                 f"{r['events_received']} events, generator {r['generator_cpu'] * 100:.0f} % (lag p99 {r['generator_lag_p99_ms']} ms)"
                 + (f"; storm of {r['storm']}" if r.get("storm") else "")
                 + (f"; {r['slow_clients']} slow clients, {r['slow_held_at_end']} still held at the end" if r.get("slow_clients") else "")
                 + (f"; {r['aborted_uploads_per_s']} aborted uploads/s, {r['stalled_uploads_held_at_end']} stalled ones still held at the end"
                    if r.get("aborted_uploads_per_s") else "")])
    for name, route in r["routes"].items():
        load.append(["", "", "", "", name, route["n"], route["p50_ms"], route["p99_ms"],
                     sum(route["errors"].values()), json.dumps(route["errors"]) if route["errors"] else ""])
if load:
    table(["database", "sentinels", "streams open", "sightings/s", "route", "n", "p50 ms", "p99 ms", "errors", "notes"], load)
