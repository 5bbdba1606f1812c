#!/usr/bin/env bash
# Sync on loopback, the figures of BENCHMARKS.md's sync table:
#
#   Scripts/with-postgres.sh Benchmarks/Scripts/sync.sh [--rows N] [--clients N] [--samples N]
#
# Pushes into one server process, the initial sync of 100,000 trips next to postgres-nio + raw
# SQLite, and propagation with 100 clients synchronizing continuously.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product SyncBenchmarks
.build/release/SyncBenchmarks "$@"
