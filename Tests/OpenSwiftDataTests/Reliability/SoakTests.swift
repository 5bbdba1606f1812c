import Foundation
import Testing

/// Four model actors do mixed work at once (inserts, fetches by predicate, updates, relationship
/// edits, deletes) in a process of its own (`Tools/MemoryProbe`; `swift run MemoryProbe FILE soak
/// 20000` runs longer): no error, the store stays the same size, and the memory the process holds
/// beyond SQLite's bounded page caches stays within 10% of what it held after the warm-up.
@Suite struct SoakTests {
    @Test func mixedWorkOnFourActorsKeepsMemoryFlat() throws {
        let store = TemporaryStore()
        let (status, text) = try HelperProcess.run("MemoryProbe", [store.url.path, "soak", "600"])
        #expect(status == 0, "\(text)")
        let figures = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(figures.count == 4, "MemoryProbe printed \(text)")
        let (warm, end, saves, rows) = (figures[0], figures[1], figures[2], figures[3])
        #expect(saves == 4_800, "every save succeeded")
        #expect(rows < 3_000, "the deletes kept up with the inserts (\(rows) rows)")
        if !isRunningUnderThreadSanitizer {
            #expect(Double(end) <= Double(warm) * 1.1, "memory after the warm-up \(warm / 1024) KiB, at the end \(end / 1024) KiB")
        }
    }
}
