import Foundation
import PredicateFuzzing
import Testing
@testable import OpenSwiftData

/// Several processes save to one store at once (an SQLite file, or, in the PostgreSQL run, one
/// PostgreSQL namespace), on rows they all change: every save lands
/// (none fails with "database is locked" while the others hold the write lock for less than the
/// busy timeout), nothing committed is lost, and every process sees the others' rows.
@Suite struct ContentionTests {
    @Test func fourProcessesSavingAtOnceLoseNothing() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self]), configurations: [store.configuration()])
        let setup = ModelContext(container)
        for number in 0..<4 { setup.insert(FuzzOwner(name: "shared-\(number)", rank: -1)) }
        try setup.save()

        let processes = 4
        let saves = TestCounts.count(quick: 400, full: 2_500)
        let writers = try (0..<processes).map { number in
            try HelperProcess.start("HistoryWriter", [store.helperArgument, "contend", "\(saves)", "\(processes * saves)", "writer\(number)"])
        }
        for (number, (process, output)) in writers.enumerated() {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "writer \(number): \(text)")
            #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "writer \(number) saw every process's rows: \(text)")
        }

        let context = ModelContext(try ModelContainer(for: Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self]), configurations: [store.configuration()]))
        let owners = try context.fetch(FetchDescriptor<FuzzOwner>())
        for number in 0..<processes {
            let prefix = "writer\(number)-"
            let seqs = owners.filter { $0.name.hasPrefix(prefix) }.map(\.rank).sorted()
            #expect(seqs == Array(0..<saves), "writer \(number)'s \(saves) saves all landed, once each (\(seqs.count))")
        }
        let shared = owners.filter { $0.name.hasPrefix("shared-") }
        #expect(shared.count == 4)
        #expect(shared.allSatisfy { $0.rank >= saves - 4 && $0.rank < saves }, "each shared row holds one writer's last value for it: \(shared.map(\.rank))")
        guard TemporaryStore.defaultBackend == .sqlite else { return }
        let connection = try SQLiteConnection(path: store.url.path, readOnly: true, create: false)
        let check = try connection.uncachedStatement("PRAGMA integrity_check")
        #expect(try check.step() && check._string(0) == "ok")
    }
}
