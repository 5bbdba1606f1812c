#!/usr/bin/env bash
# Runs the whole test suite, and, when OSD_POSTGRES_URL names a server (Scripts/with-postgres.sh
# sets it), the server-restart test on a throwaway server of its own and the store-neutral suites a
# second time with PostgreSQL as their default store.
#
#   Scripts/with-postgres.sh Scripts/test-all.sh
#
# The first pass already runs the PostgreSQL tests (PostgresStoreTests, and the suites
# parameterized over every backend). The second pass skips the suites and tests that are about
# SQLite files by design: corrupt, damaged or foreign files, file migrations and their kill tests,
# the SQL plans SQLite chooses, several store files in one container, rows written into the file by
# other programs and tables they removed (PostgresRemovedTableTests covers PostgreSQL), saves of other
# containers while a plan migrates a file (a PostgreSQL plan is one transaction), failure
# injection into the SQLite seam and its VFS, and migration-plan tests that open store files by URL
# (PostgreSQL's migration plans are tested by PostgresMigrationTests).
set -euo pipefail
cd "$(dirname "$0")/.."

swift test "$@"

if [ -n "${OSD_POSTGRES_URL:-}" ]; then
    echo "== A PostgreSQL server restarted under running saves (a server of its own)"
    OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh swift test --skip-build --filter PostgresRestartTests
    echo "== The store-neutral suites again, on PostgreSQL"
    OSD_TEST_BACKEND=postgres swift test --skip-build --filter OpenSwiftDataTests \
        --skip 'SeveralStoresTests|StoreErrorTests|ForeignWritesTests|ContainerTests|MigrationPlanTests|anInterruptedMigration|aBackupLeftByAFinishedMigration|IndexTests|aFileDamagedMidRunGivesErrorsNotTraps|aBatchThatFailsToLoadGivesPlaceholdersAndTheErrorAtTheNextFetch|StorageFaultTests|MergeFailureTests|prefetchedModelsAreLoadedByTheFetchItself|RemovedTableTests|SavesDuringAPlanTests'
fi
