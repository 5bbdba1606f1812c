#!/usr/bin/env bash
# The long randomized checks at their full counts: what a release runs. `swift test` (and so CI)
# runs each of them at a small count.
#
#   Scripts/with-postgres.sh Scripts/long-checks.sh      # SQLite, then PostgreSQL (two hours or more)
#   Scripts/long-checks.sh                               # SQLite only
#
# SEED=N fixes the first seed of every check (default: a new one each run, printed). Prints each
# check's own report, then one line per check and a closing "N passed, N failed" line; exits 1 when
# any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."

SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}
echo "== first seed $SEED"
swift build -c release || exit 1
BIN=.build/release
STORE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/osd-long-checks.XXXXXX")
trap 'rm -rf "$STORE_DIR"' EXIT

passed=0
failed=0
results=()
check() {
    local name=$1
    shift
    echo "== $name: $*"
    local start=$SECONDS
    if "$@"; then
        passed=$((passed + 1))
        results+=("passed  $name ($((SECONDS - start)) s)")
    else
        failed=$((failed + 1))
        results+=("FAILED  $name ($((SECONDS - start)) s)")
    fi
}

check "a package made from the README's lines, built and run" Scripts/check-package-use.sh
check "random predicates, 1,000,000" "$BIN/PredicateFuzz" --seeds 10 --count 100000 --seed "$SEED"
check "migrations killed, 100 per scenario" "$BIN/MigrationKill" --kills 100 --rows 20000 --seed "$SEED"
check "a ledger writer killed, 1,000 times" "$BIN/LedgerKill" --kills 1000 --seed "$SEED"
check "preferences and cache writers killed, 1,000 times each" "$BIN/ToolboxKill" --kills 1000 --seed "$SEED"
check "the soak, 20,000 rounds of four actors" "$BIN/MemoryProbe" "$STORE_DIR/soak.store" soak 20000
check "random saves under live observers, 200 seeds" env OSD_OBSERVER_SEEDS=200 swift test --filter ResultsObserverDifferentialTests
check "the randomized suites at their full counts" env OSD_TEST_COUNTS=full swift test \
    --filter 'RandomGraphTests|RandomUndoTests|LedgerKillTests|RuleBearingDeleteTests|RandomHistoryTests|AggregateTests|ContentionTests|PredicateDifferentialTests|LargePredicateTests|RandomPredicateTests|MigrationKillTests|StandInReleaseTests|StatementCacheTests'

if [ -n "${OSD_POSTGRES_URL:-}" ]; then
    check "every suite of the default store, PostgreSQL as that store" Scripts/test-all.sh --default-store-on-postgres
    check "the randomized suites at their full counts, PostgreSQL as the default store" env OSD_TEST_COUNTS=full OSD_TEST_BACKEND=postgres swift test \
        --filter 'RandomGraphTests|RandomUndoTests|RuleBearingDeleteTests|RandomHistoryTests|ContentionTests|ResultsObserverDifferentialTests|StandInReleaseTests|ModelActorTests|MigrationKillTests'
    check "random predicates on PostgreSQL, 200,000" "$BIN/PredicateFuzz" --postgres --seeds 40 --count 5000 --depth 5 --seed "$SEED"
    check "migrations killed on PostgreSQL, 20 per scenario" "$BIN/MigrationKill" --postgres --kills 20 --rows 2000 --seed "$SEED"
    check "a ledger writer killed on PostgreSQL, 300 times" "$BIN/LedgerKill" --postgres --kills 300 --seed "$SEED"
else
    echo "== PostgreSQL checks skipped: run under Scripts/with-postgres.sh"
fi

echo "== long checks, first seed $SEED"
printf '%s\n' "${results[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
