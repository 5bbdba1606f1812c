#!/usr/bin/env bash
# The sync convergence checker's long run (docs/Sync.md, "Checking it"): runs of ten clients
# killed at random moments, with trims and three server processes, split over loops that run side
# by side against one PostgreSQL server (a run leaves the machine idle part of the time: its
# clients wait on each other and on the server). The checker is built for release.
#
#   Scripts/with-postgres.sh Scripts/sync-check.sh                      # 1,000 runs, 2 loops (about 2 hours on 2 cores)
#   Scripts/with-postgres.sh Scripts/sync-check.sh --runs 60 --shares   # three users sharing
#   Scripts/with-postgres.sh Scripts/sync-check.sh --runs 60 --pauses   # processes stopped for seconds, too
#
# Options: --runs R (1000) in all, --loops L (2), --clients K (10), --operations N (200), --shares,
# --pauses (a client or server process stopped with SIGSTOP for 1 to 12 s, up to twice a run),
# --out DIR (where each loop writes its log, a line per run; default a new temporary directory).
# SEED=N fixes the first loop's seed (the others take the next ones, a million apart).
# Prints the sums and exits 1 when a run found a violation or a loop stopped on an error.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ -z "${OSD_POSTGRES_URL:-}" ]; then
    echo "sync-check.sh: no PostgreSQL server; run it as Scripts/with-postgres.sh Scripts/sync-check.sh" >&2
    exit 2
fi

RUNS=1000
LOOPS=2
CLIENTS=10
OPERATIONS=200
SHARES=""
PAUSES=""
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --loops) LOOPS=$2; shift 2 ;;
        --clients) CLIENTS=$2; shift 2 ;;
        --operations) OPERATIONS=$2; shift 2 ;;
        --shares) SHARES="--shares"; shift ;;
        --pauses) PAUSES="--pauses"; shift ;;
        --out) OUT=$2; shift 2 ;;
        *) echo "sync-check.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/osd-sync-check.XXXXXX")}
mkdir -p "$OUT"
SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}

swift build -c release --product SyncCheck || exit 1
CHECKER=$(swift build -c release --show-bin-path)/SyncCheck

echo "== $RUNS runs × $CLIENTS clients × $OPERATIONS operations, trims, three server processes${SHARES:+, three users sharing}${PAUSES:+, processes paused}; $LOOPS loops, first seed $SEED; logs in $OUT"
pids=()
for loop in $(seq 1 "$LOOPS"); do
    # The runs left over from an uneven split go to the first loops.
    runs=$((RUNS / LOOPS + (loop <= RUNS % LOOPS ? 1 : 0)))
    [ "$runs" -gt 0 ] || continue
    "$CHECKER" run --postgres "$OSD_POSTGRES_URL" --runs "$runs" --clients "$CLIENTS" --operations "$OPERATIONS" \
        --trims --servers 3 $SHARES $PAUSES --seed $((SEED + (loop - 1) * 1000000)) > "$OUT/loop-$loop.log" 2>&1 &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
done

# Each loop's line per run: "run I of R: W writes, K clients killed, …, V violations; …".
cat "$OUT"/loop-*.log | awk '
    /^run [0-9]+ of [0-9]+:/ { runs++; writes += $5; kills += $7; restarts += $10; violations += $(NF - 5) }
    END { printf "runs: %d, writes: %d, clients killed: %d, server restarts: %d, violations: %d\n", runs, writes, kills, restarts, violations }'
grep -h "^run [0-9]*: \|^SyncCheck: " "$OUT"/loop-*.log
[ "$failed" -eq 0 ]
