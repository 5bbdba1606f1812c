#!/usr/bin/env python3
"""Turns servers.sh's results into the Markdown tables of BENCHMARKS.md, with the ratios of the
goals: OpenSwiftData on PostgreSQL against hand-written postgres-nio and Fluent."""
import sys
from collections import defaultdict

NAMES = {"pgnio": "postgres-nio", "fluent": "Fluent", "osdpg": "OSD PostgreSQL", "osdsqlite": "OSD SQLite"}
ORDER = ["pgnio", "fluent", "osdpg", "osdsqlite"]
ROUTES = {"best": "GET /trips?minimum=50", "code": "GET /trips/:code", "put": "PUT /trips", "health": "GET /health",
          "health-under-put": "GET /health beside 256 PUT", "put-beside-health": "PUT /trips (256) beside it"}

runs = {}
processes = []
extra = []
for line in open(sys.argv[1]):
    fields = line.rstrip("\n").split("\t")
    if fields[0] == "process":
        processes.append(fields[1:])
    elif len(fields) == 7 and fields[0] in NAMES:
        server, route, connections, rps, p50, p99, errors = fields
        runs[(route, int(connections), server)] = (float(rps), float(p50), float(p99), int(errors))
    else:
        extra.append(line.rstrip("\n"))

servers = [s for s in ORDER if any(key[2] == s for key in runs)]
keys = sorted({(route, c) for route, c, _ in runs}, key=lambda k: (list(ROUTES).index(k[0]) if k[0] in ROUTES else 99, k[1]))

def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "—"

print("Requests per second (p50 / p99 ms):\n")
print("| route | conns | " + " | ".join(NAMES[s] for s in servers) + " | OSD PG ÷ nio req/s | OSD PG ÷ Fluent req/s | OSD PG ÷ nio p99 |")
print("|---|---:|" + "---:|" * len(servers) + "---:|---:|---:|")
for route, c in keys:
    cells = []
    for s in servers:
        r = runs.get((route, c, s))
        cells.append("—" if r is None else f"{r[0]:,.0f} ({r[1]:.2f} / {r[2]:.2f})" + (f", {r[3]} errors" if r[3] else ""))
    nio, fluent, osd = (runs.get((route, c, s)) for s in ("pgnio", "fluent", "osdpg"))
    print(f"| {ROUTES.get(route, route)} | {c} | " + " | ".join(cells) + " | "
          + f"{ratio(osd and osd[0], nio and nio[0])} | {ratio(osd and osd[0], fluent and fluent[0])} | {ratio(osd and osd[2], nio and nio[2])} |")

if processes:
    print("\nThe server process (threads; resident MiB): after seeding, peak, at the end\n")
    print("| server | threads | RSS MiB |")
    print("|---|---|---|")
    for kind, t0, tp, t1, m0, mp, m1 in processes:
        print(f"| {NAMES.get(kind, kind)} | {t0} / {tp} / {t1} | {m0} / {mp} / {m1} |")
for line in extra:
    print("\n" + line)
