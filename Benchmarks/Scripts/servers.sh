#!/usr/bin/env bash
# The load harness: the same four routes served by OpenSwiftData on PostgreSQL (a @ModelActor per
# request), Fluent, hand-written postgres-nio and OpenSwiftData on SQLite, one Hummingbird 2 app
# each (Sources/TripServers), loaded by wrk on loopback. The figures of BENCHMARKS.md's server table:
#
#   Scripts/with-postgres.sh Benchmarks/Scripts/servers.sh [--duration S] [--rows N]
#       [--servers osdpg,fluent,pgnio,osdsqlite] [--concurrency 1,16,256] [--long S] [--no-restart]
#       [--outage S]
#
# For each server: seeds 100,000 trips (untimed), warms each route up, then runs wrk for
# --duration seconds (default 10) per route and concurrency; then `GET /health` at concurrency 1
# while 256 connections send `PUT /trips`. Reports requests/s, p50 and p99 per route, and the
# server process's threads and resident memory after seeding, at their peak and at the end.
# --long S adds a mixed run of S seconds against OpenSwiftData on PostgreSQL with its memory
# sampled every 10 s. Under `OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh`, it also
# restarts PostgreSQL during a PUT load on each PostgreSQL server and reports the errors and how
# soon requests succeed again (--no-restart skips that; --outage S keeps PostgreSQL down S seconds
# before it starts again, beside its crash recovery). The full run of BENCHMARKS.md:
#
#   OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh Benchmarks/Scripts/servers.sh --long 300
#
# Needs wrk (apt-get update && apt-get install wrk). About 12 minutes with the defaults, after the release build.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=10
ROWS=100000
SERVERS=osdpg,fluent,pgnio,osdsqlite
CONCURRENCY=1,16,256
LONG=0
RESTART=$([ -n "${OSD_POSTGRES_RESTART:-}" ] && echo 1 || echo 0)
while [ "$#" -gt 0 ]; do
    case "$1" in
        --duration) DURATION=$2; shift 2 ;;
        --rows) ROWS=$2; shift 2 ;;
        --servers) SERVERS=$2; shift 2 ;;
        --concurrency) CONCURRENCY=$2; shift 2 ;;
        --long) LONG=$2; shift 2 ;;
        --no-restart) RESTART=0; shift ;;
        --outage) export OSD_POSTGRES_DOWN_SECONDS=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done
export TRIP_ROWS=$ROWS
command -v wrk >/dev/null || { echo "servers.sh needs wrk (apt-get update && apt-get install wrk)" >&2; exit 69; }
[ -n "${OSD_POSTGRES_URL:-}" ] || { echo "run under Scripts/with-postgres.sh" >&2; exit 64; }

swift build -c release --product TripServers
SERVER_BINARY=.build/release/TripServers
WORK=$(mktemp -d "${TMPDIR:-/tmp}/osd-servers.XXXXXX")
RESULTS="$WORK/results.tsv"
SERVER_PID=""
SAMPLER_PID=""
cleanup() {
    [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null || true
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
psql_run() { psql "$OSD_POSTGRES_URL" -q -v ON_ERROR_STOP=1 -c "$1" >/dev/null; }
status_field() { awk -v field="$1:" '$1 == field { print $2 }' "/proc/$SERVER_PID/status"; }

start_server() {
    local kind=$1
    PORT=$(free_port)
    case "$kind" in
        osdpg) psql_run "DROP SCHEMA IF EXISTS servers_osd CASCADE" ;;
        osdsqlite) rm -f "$WORK"/trips.store* ;;
    esac
    "$SERVER_BINARY" "$kind" --port "$PORT" --rows "$ROWS" --path "$WORK/trips.store" >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 600); do
        grep -q "listening on" "$WORK/server.log" && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 70; }
        sleep 0.2
    done
    grep -q "listening on" "$WORK/server.log" || { echo "$kind did not start" >&2; exit 70; }
    # Every server's freshly seeded tables vacuumed and analyzed before any route is measured,
    # rather than by autovacuum in the middle of one (100,000 inserts start it).
    [ "$kind" != osdsqlite ] && psql_run "VACUUM ANALYZE"
    # The peaks of threads and resident memory, sampled every 100 ms while the server runs.
    (
        peak_threads=0; peak_rss=0
        while kill -0 "$SERVER_PID" 2>/dev/null; do
            threads=$(status_field Threads || echo 0); rss=$(status_field VmRSS || echo 0)
            [ "${threads:-0}" -gt "$peak_threads" ] && peak_threads=$threads
            [ "${rss:-0}" -gt "$peak_rss" ] && peak_rss=$rss
            echo "$peak_threads $peak_rss" >"$WORK/peaks"
            sleep 0.1
        done
    ) &
    SAMPLER_PID=$!
}

stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    # A server whose pool is still reconnecting may not stop at once: ten seconds, then for good.
    for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    kill "$SAMPLER_PID" 2>/dev/null || true
    wait "$SAMPLER_PID" 2>/dev/null || true
    SERVER_PID=""; SAMPLER_PID=""
}

# wrk CONNECTIONS SECONDS SCRIPT PATH: prints wrk's RESULT line.
load() {
    local connections=$1 seconds=$2 script=$3 path=$4 threads=2
    [ "$connections" -lt 2 ] && threads=1
    wrk -t "$threads" -c "$connections" -d "${seconds}s" --timeout 10s -s "$script" "http://127.0.0.1:$PORT$path" | grep '^RESULT'
}

# record SERVER ROUTE CONNECTIONS RESULT-LINE: one row of the results.
record() {
    local line
    line=$(echo "$4" | awk -v server="$1" -v route="$2" -v connections="$3" \
        '{ printf "%s\t%s\t%s\t%.0f\t%.2f\t%.2f\t%d\n", server, route, connections, $2 / ($3 / 1e6), $4 / 1000, $5 / 1000, $6 + $7 }')
    echo "$line" >>"$RESULTS"
    echo "$line"
}

ROUTES=("best|Scripts/wrk/report.lua|/trips?minimum=50" "code|Scripts/wrk/trip-by-code.lua|/trips/" "put|Scripts/wrk/put-trip.lua|/trips" "health|Scripts/wrk/report.lua|/health")

IFS=, read -r -a KINDS <<<"$SERVERS"
IFS=, read -r -a LEVELS <<<"$CONCURRENCY"
echo "server	route	connections	requests/s	p50 ms	p99 ms	errors"
for kind in "${KINDS[@]}"; do
    start_server "$kind"
    START_THREADS=$(status_field Threads); START_RSS=$(status_field VmRSS)
    for entry in "${ROUTES[@]}"; do
        IFS='|' read -r route script path <<<"$entry"
        load 16 2 "$script" "$path" >/dev/null   # warm-up: connections, prepared statements
    done
    for entry in "${ROUTES[@]}"; do
        IFS='|' read -r route script path <<<"$entry"
        for connections in "${LEVELS[@]}"; do
            record "$kind" "$route" "$connections" "$(load "$connections" "$DURATION" "$script" "$path")"
        done
    done
    # GET /health at concurrency 1 while 256 connections send PUT /trips.
    load 256 "$((DURATION + 2))" Scripts/wrk/put-trip.lua /trips >"$WORK/hammer" &
    HAMMER=$!
    sleep 1
    record "$kind" "health-under-put" 1 "$(load 1 "$DURATION" Scripts/wrk/report.lua /health)"
    wait "$HAMMER"
    record "$kind" "put-beside-health" 256 "$(cat "$WORK/hammer")"
    END_THREADS=$(status_field Threads); END_RSS=$(status_field VmRSS)
    read -r PEAK_THREADS PEAK_RSS <"$WORK/peaks"
    printf 'process\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$START_THREADS" "$PEAK_THREADS" "$END_THREADS" \
        "$((START_RSS / 1024))" "$((PEAK_RSS / 1024))" "$((END_RSS / 1024))" | tee -a "$RESULTS"
    stop_server
done

if [ "$LONG" -gt 0 ]; then
    echo "== $LONG s of mixed load on OpenSwiftData (PostgreSQL): resident memory every 10 s (MiB)"
    start_server osdpg
    load 128 "$LONG" Scripts/wrk/put-trip.lua /trips >"$WORK/long-put" &
    PUTS=$!
    load 128 "$LONG" Scripts/wrk/trip-by-code.lua /trips/ >"$WORK/long-get" &
    GETS=$!
    SAMPLES=""
    for _ in $(seq $((LONG / 10))); do
        sleep 10
        SAMPLES="$SAMPLES $(( $(status_field VmRSS) / 1024 ))"
    done
    wait "$PUTS" "$GETS"
    echo "rss$SAMPLES" | tee -a "$RESULTS"
    echo "threads at the end: $(status_field Threads)"
    record osdpg long-put 128 "$(cat "$WORK/long-put")"
    record osdpg long-get 128 "$(cat "$WORK/long-get")"
    stop_server
fi

if [ "$RESTART" = 1 ]; then
    for kind in "${KINDS[@]}"; do
        [ "$kind" = osdsqlite ] && continue
        start_server "$kind"
        load 16 20 Scripts/wrk/put-trip.lua /trips >"$WORK/restart-load" &
        LOADER=$!
        sleep 5
        BEFORE=$(date +%s.%N)
        "$OSD_POSTGRES_RESTART"
        UP=$(date +%s.%N)
        # The first PUT that succeeds once PostgreSQL accepts connections again.
        until curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
            -d '{"code":"T000001","name":"probe","rating":1}' "http://127.0.0.1:$PORT/trips" | grep -q '^2'; do
            sleep 0.05
        done
        BACK=$(date +%s.%N)
        wait "$LOADER"
        case "$kind" in osdpg) TABLE='servers_osd."Trip"' ;; pgnio) TABLE=servers_nio.trip ;; *) TABLE=servers_fluent.trip ;; esac
        COUNT=$(psql "$OSD_POSTGRES_URL" -tA -c "SELECT count(*) FROM $TABLE" 2>/dev/null || echo "?")
        awk -v kind="$kind" -v before="$BEFORE" -v up="$UP" -v back="$BACK" -v count="$COUNT" -v result="$(cat "$WORK/restart-load")" 'BEGIN {
            split(result, r, " ")
            printf "restart\t%s\tdown %.2f s\tback %.2f s after\t%d requests, %d errors\trows %s\n", kind, up - before, back - up, r[2], r[6] + r[7], count }' | tee -a "$RESULTS"
        stop_server
    done
fi

echo
python3 Scripts/servers-table.py "$RESULTS"
