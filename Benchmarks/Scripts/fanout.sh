#!/usr/bin/env bash
# Fan-out from one sync server process to many connected clients, BENCHMARKS.md's sync scale rows:
#
#   Scripts/with-postgres.sh Benchmarks/Scripts/fanout.sh [--clients 1000] [--samples 20] [--same-user]
#
# A trip shared with each of the clients' users (or, --same-user, the owner's own devices); each
# client waits on the server for changes; the time from a save until every client has it, and the
# server process's memory per connected client.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
swift build -c release --product SyncFanOut
.build/release/SyncFanOut "$@"
