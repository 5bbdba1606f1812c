#!/usr/bin/env bash
# Builds the benchmark in release mode and runs every workload on SQLite (hand-written C, GRDB,
# OpenSwiftData) and the toolbox's caches, then, when OSD_POSTGRES_URL names a server, on PostgreSQL (hand-written
# postgres-nio, Fluent, OpenSwiftData): the tables of BENCHMARKS.md.
#
#   Scripts/with-postgres.sh Benchmarks/Scripts/all.sh [--runs N]
#
# Extra arguments go to every run (`--runs 3` for a quicker pass). About an hour on 2 cores,
# most of it W3's and W4's thousand queries per run and Fluent's W5 (and the release build, the first time).
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product OSDBenchmarks
BENCH=.build/release/OSDBenchmarks

echo "== SQLite"
"$BENCH" --workloads W1,W2,W3,W4,W3b,W4b,W5,W6,W6c,W7,W8,W9,W10,W12,W13,W14 --contenders raw,grdb,osd "$@"
echo "== Live queries (W11)"
"$BENCH" W11
echo "== Caches (OpenSwiftDataToolbox)"
swift build -c release --product ToolboxBenchmarks
.build/release/ToolboxBenchmarks "$@"

if [ -n "${OSD_POSTGRES_URL:-}" ]; then
    echo "== PostgreSQL"
    "$BENCH" --workloads W1,W2,W3,W4,W5,W6,W6k,W6c,W8,W12,W13,W14 --contenders pgnio,fluent,osdpg "$@"
    # Fluent has no W9 (no second connection for reads beside a writer), and its eager loader does
    # not finish W7 at 100,000 activities (BENCHMARKS.md, PostgreSQL).
    "$BENCH" --workloads W7,W9 --contenders pgnio,osdpg "$@"
else
    echo "== PostgreSQL skipped: run under Scripts/with-postgres.sh"
fi
