#!/usr/bin/env bash
# Runs every test, the store-parameterized suites once per store:
#
#   Scripts/with-postgres.sh Scripts/test-all.sh [swift test options, e.g. --skip-build]
#   Scripts/with-postgres.sh Scripts/test-all.sh --default-store-on-postgres [swift test options]
#
# 1. `swift test`: everything, on SQLite by default; the suites parameterized over the stores run
#    on each (SQLite, the custom-store adapter and, when OSD_POSTGRES_URL names a server,
#    PostgreSQL), and so do PostgreSQL's own tests.
# 2. With a server: the server-restart test, on a throwaway server of its own (it crashes it).
#
# With --skip-build (the build done first, as CI does), pass 2 runs at the same time as pass 1,
# from the test binary itself (SwiftPM lets one `swift test` run at a time in a build folder);
# its report follows pass 1's.
#
# --default-store-on-postgres runs instead the suites that run on "the default store"
# (`TemporaryStore`) once more, with PostgreSQL as that store (`OSD_TEST_BACKEND=postgres`), at
# a quarter of their quick counts (TestCounts.isPostgresPass); CI runs it after the other passes
# when they leave it room under its 15-minute limit (about 100 s of CPU, the server's included),
# and Scripts/long-checks.sh always does. The suites parameterized over the stores run no case in
# this pass (they ran on every store in pass 1), and the suites that touch no store, or are about
# SQLite files by design, are skipped: corrupt, damaged or foreign files, stores Apple's frameworks
# wrote (read as files; PostgresAppleImportTests imports them into PostgreSQL), file migrations and
# their kill tests, the SQL plans SQLite chooses, SQLite's statement cache, several store files in
# one container, rows written into the file by other programs and tables they removed
# (PostgresRemovedTableTests covers PostgreSQL), the soak (its probe process works on a file),
# saves of other containers while a plan migrates a file (a PostgreSQL plan is one transaction),
# failure injection into the SQLite seam and its VFS, migration-plan tests that open store files
# by URL (PostgresMigrationTests covers PostgreSQL's plans), and the random predicates of
# RandomPredicateTests (a file; PredicateFuzz --postgres covers PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."

# Suites that touch no store, or that are about SQLite files by design (see above).
no_store='DemoTests|UndoManagerTests|EditingStateTests|TextOrderTests|PrimaryKeyMapTests|SchemaDescriptionTests|SendabilityTests|RandomPredicateTests|LayerTests'
sqlite_files='AppleModelTests|AppleStoreNewStoreTests|DamagedAppleStoreTests|SoakTests|SeveralStoresTests|StoreErrorTests|ForeignWritesTests|ContainerTests|MigrationPlanTests|anInterruptedMigration|aBackupLeftByAFinishedMigration|IndexTests|StatementCacheTests|aFileDamagedMidRunGivesErrorsNotTraps|aBatchThatFailsToLoadGivesPlaceholdersAndTheErrorAtTheNextFetch|StorageFaultTests|MergeFailureTests|prefetchedModelsAreLoadedByTheFetchItself|RemovedTableTests|SavesDuringAPlanTests'

if [ "${1:-}" = "--default-store-on-postgres" ]; then
    shift
    [ -n "${OSD_POSTGRES_URL:-}" ] || { echo "--default-store-on-postgres needs a server: run under Scripts/with-postgres.sh" >&2; exit 2; }
    echo "== The suites of the default store, on PostgreSQL"
    OSD_TEST_BACKEND=postgres exec swift test "$@" --filter OpenSwiftDataTests --skip "$no_store|$sqlite_files"
fi

restart_pass_pid=
if [ -n "${OSD_POSTGRES_URL:-}" ] && [[ " $* " == *" --skip-build "* ]]; then
    tests="$(swift build --show-bin-path)/OpenSwiftDataPackageTests.xctest"
    restart_log=$(mktemp "${TMPDIR:-/tmp}/osd-restart-pass.XXXXXX")
    trap 'rm -f "$restart_log"' EXIT
    OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh "$tests" --testing-library swift-testing \
        --filter PostgresRestartTests >"$restart_log" 2>&1 &
    restart_pass_pid=$!
fi

echo "== swift test"
status=0
swift test "$@" || status=$?

if [ -n "${OSD_POSTGRES_URL:-}" ]; then
    echo "== A PostgreSQL server restarted under running saves (a server of its own)"
    if [ -n "$restart_pass_pid" ]; then
        wait "$restart_pass_pid" || status=$?
        cat "$restart_log"
    else
        OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh swift test --skip-build --filter PostgresRestartTests || status=$?
    fi
fi
exit "$status"
