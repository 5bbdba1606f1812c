#!/usr/bin/env bash
# Runs every test once per store:
#
#   Scripts/with-postgres.sh Scripts/test-all.sh [swift test options, e.g. --skip-build]
#
# 1. `swift test`: everything, on SQLite by default; the suites parameterized over the stores run
#    on each (SQLite, the custom-store adapter and, when OSD_POSTGRES_URL names a server,
#    PostgreSQL), and so do PostgreSQL's own tests.
# 2. With a server: the suites that run on "the default store" (`TemporaryStore`) once more, with
#    PostgreSQL as that store (`OSD_TEST_BACKEND=postgres`). The suites parameterized over the
#    stores run no case in this pass (they ran on every store in the first), the randomized suites
#    run a quarter of their quick counts (TestCounts.isPostgresPass), and the suites that
#    touch no store, or are about SQLite files by design, are skipped: corrupt, damaged or foreign
#    files, stores Apple's frameworks wrote (read as files; PostgresAppleImportTests imports them
#    into PostgreSQL), file migrations and their kill tests, the SQL plans SQLite chooses, SQLite's statement
#    cache, several store files in one container, rows written into the file by other programs and
#    tables they removed (PostgresRemovedTableTests covers PostgreSQL), the soak (its probe process
#    works on a file), saves of other containers
#    while a plan migrates a file (a PostgreSQL plan is one transaction), failure injection into
#    the SQLite seam and its VFS, migration-plan tests that open store files by URL
#    (PostgresMigrationTests covers PostgreSQL's plans), and the random predicates of
#    RandomPredicateTests (a file; PredicateFuzz --postgres covers PostgreSQL).
# 3. With a server: the server-restart test, on a throwaway server of its own (it crashes it).
#
# With --skip-build (the build done first, as CI does), passes 2 and 3 run at the same time as
# pass 1, from the test binary itself (SwiftPM lets one `swift test` run at a time in a build
# folder); their reports follow pass 1's. Without it, the passes run one after another.
set -euo pipefail
cd "$(dirname "$0")/.."

# Suites that touch no store, or that are about SQLite files by design (see above).
no_store='DemoTests|UndoManagerTests|EditingStateTests|TextOrderTests|PrimaryKeyMapTests|SchemaDescriptionTests|SendabilityTests|RandomPredicateTests|LayerTests'
sqlite_files='AppleModelTests|AppleStoreNewStoreTests|DamagedAppleStoreTests|SoakTests|SeveralStoresTests|StoreErrorTests|ForeignWritesTests|ContainerTests|MigrationPlanTests|anInterruptedMigration|aBackupLeftByAFinishedMigration|IndexTests|StatementCacheTests|aFileDamagedMidRunGivesErrorsNotTraps|aBatchThatFailsToLoadGivesPlaceholdersAndTheErrorAtTheNextFetch|StorageFaultTests|MergeFailureTests|prefetchedModelsAreLoadedByTheFetchItself|RemovedTableTests|SavesDuringAPlanTests'

postgres_pass_pid=
restart_pass_pid=
if [ -n "${OSD_POSTGRES_URL:-}" ] && [[ " $* " == *" --skip-build "* ]]; then
    tests="$(swift build --show-bin-path)/OpenSwiftDataPackageTests.xctest"
    postgres_log=$(mktemp "${TMPDIR:-/tmp}/osd-postgres-pass.XXXXXX")
    restart_log=$(mktemp "${TMPDIR:-/tmp}/osd-restart-pass.XXXXXX")
    trap 'rm -f "$postgres_log" "$restart_log"' EXIT
    OSD_TEST_BACKEND=postgres "$tests" --testing-library swift-testing \
        --filter OpenSwiftDataTests --skip "$no_store|$sqlite_files" >"$postgres_log" 2>&1 &
    postgres_pass_pid=$!
    OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh "$tests" --testing-library swift-testing \
        --filter PostgresRestartTests >"$restart_log" 2>&1 &
    restart_pass_pid=$!
fi

echo "== swift test"
status=0
swift test "$@" || status=$?

if [ -n "${OSD_POSTGRES_URL:-}" ]; then
    echo "== The suites of the default store, on PostgreSQL"
    if [ -n "$postgres_pass_pid" ]; then
        postgres_status=0
        wait "$postgres_pass_pid" || postgres_status=$?
        cat "$postgres_log"
    else
        postgres_status=0
        OSD_TEST_BACKEND=postgres swift test --skip-build --filter OpenSwiftDataTests --skip "$no_store|$sqlite_files" || postgres_status=$?
    fi
    [ "$postgres_status" -eq 0 ] || status=$postgres_status
    echo "== A PostgreSQL server restarted under running saves (a server of its own)"
    if [ -n "$restart_pass_pid" ]; then
        wait "$restart_pass_pid" || status=$?
        cat "$restart_log"
    else
        OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh swift test --skip-build --filter PostgresRestartTests || status=$?
    fi
fi
exit "$status"
