#!/usr/bin/env bash
# Where a route's CPU time goes: the server process's and PostgreSQL's, per request, for each
# PostgreSQL server of the load harness (Sources/TripServers) under one route and concurrency.
#
#   Scripts/with-postgres.sh Benchmarks/Scripts/server-cpu.sh [--servers osdpg,pgnio,fluent]
#       [--route code|best|put] [--connections 16] [--duration 10] [--rows N]
#
# For each server: seeds the trips (untimed), warms the route up for 3 s, then runs wrk for
# --duration seconds and reads the CPU time (user and system) of the server process and of every
# PostgreSQL process from /proc before and after. Prints requests/s, p50 and p99, and the
# microseconds of CPU each request cost the server and PostgreSQL. Needs wrk.
set -euo pipefail
cd "$(dirname "$0")/.."

SERVERS=osdpg,pgnio
ROUTE=code
CONNECTIONS=16
DURATION=10
ROWS=100000
while [ "$#" -gt 0 ]; do
    case "$1" in
        --servers) SERVERS=$2; shift 2 ;;
        --route) ROUTE=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --rows) ROWS=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done
command -v wrk >/dev/null || { echo "server-cpu.sh needs wrk (apt-get update && apt-get install wrk)" >&2; exit 69; }
[ -n "${OSD_POSTGRES_URL:-}" ] || { echo "run under Scripts/with-postgres.sh" >&2; exit 64; }
case "$ROUTE" in
    code) SCRIPT=Scripts/wrk/trip-by-code.lua; URL_PATH=/trips/ ;;
    best) SCRIPT=Scripts/wrk/report.lua; URL_PATH="/trips?minimum=50" ;;
    put) SCRIPT=Scripts/wrk/put-trip.lua; URL_PATH=/trips ;;
    *) echo "unknown route $ROUTE (code, best or put)" >&2; exit 64 ;;
esac
export TRIP_ROWS=$ROWS

swift build -c release --product TripServers
WORK=$(mktemp -d "${TMPDIR:-/tmp}/osd-server-cpu.XXXXXX")
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# CPU ticks (user + system) of one process, and of every PostgreSQL process (the machine's only
# server is the one Scripts/with-postgres.sh started; its backends live as long as the connections).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
postgres_ticks() {
    local total=0 pid
    for pid in $(pgrep -x postgres || true); do
        total=$((total + $(ticks "$pid" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
HERTZ=$(getconf CLK_TCK)

printf "server\troute\tconnections\trequests/s\tp50 ms\tp99 ms\tserver µs/request\tPostgreSQL µs/request\n"
IFS=, read -r -a KINDS <<<"$SERVERS"
for kind in "${KINDS[@]}"; do
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    [ "$kind" = osdpg ] && psql "$OSD_POSTGRES_URL" -q -c "DROP SCHEMA IF EXISTS servers_osd CASCADE" >/dev/null 2>&1
    .build/release/TripServers "$kind" --port "$PORT" --rows "$ROWS" --path "$WORK/trips.store" >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 600); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.2; done
    grep -q "listening on" "$WORK/server.log" || { cat "$WORK/server.log" >&2; exit 70; }
    # The freshly seeded tables vacuumed and analyzed now, rather than by autovacuum while measured.
    psql "$OSD_POSTGRES_URL" -q -c "VACUUM ANALYZE" >/dev/null
    wrk -t 2 -c "$CONNECTIONS" -d 3s -s "$SCRIPT" "http://127.0.0.1:$PORT$URL_PATH" >/dev/null
    server_before=$(ticks "$SERVER_PID"); postgres_before=$(postgres_ticks)
    result=$(wrk -t 2 -c "$CONNECTIONS" -d "${DURATION}s" --timeout 10s -s "$SCRIPT" "http://127.0.0.1:$PORT$URL_PATH" | grep '^RESULT')
    server_used=$(($(ticks "$SERVER_PID") - server_before)); postgres_used=$(($(postgres_ticks) - postgres_before))
    echo "$result" | awk -v kind="$kind" -v route="$ROUTE" -v c="$CONNECTIONS" -v s="$server_used" -v p="$postgres_used" -v hz="$HERTZ" \
        '{ n = $2; printf "%s\t%s\t%s\t%.0f\t%.2f\t%.2f\t%.0f\t%.0f\n", kind, route, c, n / ($3 / 1e6), $4 / 1000, $5 / 1000, s / hz / n * 1e6, p / hz / n * 1e6 }'
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
done
