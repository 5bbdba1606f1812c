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

    /// `full` when the full counts were asked for, `quick` otherwise.
    static func count(quick: Int, full: Int) -> Int {
        isFull ? full : quick
    }

    /// The seeds 1 through `quick`, or 1 through `full` when the full counts were asked for.
    static func seeds(quick: Int, full: Int) -> [UInt64] {
        Array(1...UInt64(max(count(quick: quick, full: full), 1)))
    }
}
