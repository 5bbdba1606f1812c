import Foundation
import PredicateFuzzing
import Testing

/// Random predicates built at run time from Foundation's expression nodes, over every attribute
/// kind, optionals, an array, a to-one and a to-many relationship and edge values, select exactly
/// the rows `evaluate` selects on plain values. A new seed every run; a failure prints it. 1,000
/// here (2,500 with `OSD_TEST_COUNTS=full`); `Scripts/long-checks.sh` runs a million.
@Suite struct RandomPredicateTests {
    @Test func randomPredicatesMatchEvaluateOnPlainValues() throws {
        let seed = ProcessInfo.processInfo.environment["OSD_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let store = TemporaryStore()
        let count = TestCounts.count(quick: 500, full: 2_500)
        let run = try PredicateFuzzRun(seed: seed, count: count, rowCount: 120, url: store.url)
        #expect(run.checked == count)
        #expect(run.mismatches.isEmpty, """
            \(run.mismatches.count) of \(run.checked) predicates differ (seed \(seed)); rerun with \
            `swift run -c release PredicateFuzz --seed \(seed) --count \(count) --rows 120` or \
            `OSD_FUZZ_SEED=\(seed) swift test --filter RandomPredicateTests`:
            \(run.mismatches.prefix(5).map(\.description).joined(separator: "\n"))
            """)
    }
}
