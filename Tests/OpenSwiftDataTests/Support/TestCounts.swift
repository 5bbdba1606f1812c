import Foundation

/// How many seeds, rounds or rows the randomized and repeated checks run.
///
/// `swift test` (and so CI) runs the quick counts; with `OSD_TEST_COUNTS=full` the suites run the
/// counts a release runs, as `Scripts/long-checks.sh` does:
///
/// ```sh
/// OSD_TEST_COUNTS=full swift test --filter RandomUndoTests
/// ```
enum TestCounts {
    /// Whether the full counts were asked for.
    static let isFull = ProcessInfo.processInfo.environment["OSD_TEST_COUNTS"] == "full"

    /// Whether this is the pass that runs the suites of the default store again with PostgreSQL as
    /// that store (`OSD_TEST_BACKEND=postgres`, `Scripts/test-all.sh --default-store-on-postgres`).
    /// It is there for what PostgreSQL does differently, which a quarter of the quick count of a
    /// randomized suite finds as well (each save there is a round trip to the server); the whole
    /// count runs on SQLite in `swift test`, and the full counts on either store with
    /// `OSD_TEST_COUNTS=full` (`Scripts/long-checks.sh` runs all three).
    static let isPostgresPass = TemporaryStore.defaultBackend == .postgres

    /// `full` when the full counts were asked for, `quick` otherwise (a quarter of it, at least 1,
    /// in the PostgreSQL pass).
    static func count(quick: Int, full: Int) -> Int {
        if isFull { return full }
        return isPostgresPass ? max(quick / 4, 1) : quick
    }

    /// The seeds 1 through `quick`, or 1 through `full` when the full counts were asked for.
    static func seeds(quick: Int, full: Int) -> [UInt64] {
        Array(1...UInt64(max(count(quick: quick, full: full), 1)))
    }
}
