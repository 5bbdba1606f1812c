import CSQLite
import Foundation
import OpenSwiftData
import PredicateFuzzing

// A process whose resident memory the tests measure, alone, while it repeats one kind of work.
// It prints the growth of its resident memory, in bytes, between the end of a warm-up (a tenth of
// the rounds) and the end.
//
//   MemoryProbe STORE requests N    N requests: a context fetches a row, ends, and the row's items
//                                   load through a stand-in context after it
//   MemoryProbe STORE observers N   N results observers created, read and released
//   MemoryProbe STORE lists N       N fetches and counts by `ids.contains`, each list one longer
//                                   than the last: a new SQL text every time
//   MemoryProbe STORE soak N        4 model actors, N rounds each of mixed work at once (inserts,
//                                   fetches, updates, relationship edits, deletes); prints the
//                                   resident memory less SQLite's own (its page caches, which fill
//                                   up to their bound as the file and its history grow) after the
//                                   warm-up and at the end, the saves made and the rows left

/// The resident memory of this process in bytes (Linux: `/proc/self/statm`; 0 where unavailable).
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// One of the soak's actors: keeps about 200 rows of its own, changing them every round.
@ModelActor
actor SoakWorker {
    func run(rounds: Int, worker: Int, warmUp: @Sendable () -> Void) throws -> Int {
        var fuzzer = PredicateFuzzer(seed: UInt64(worker + 1))
        var mine: [PersistentIdentifier] = []
        var saves = 0
        for round in 0..<rounds {
            if round == rounds / 10 { warmUp() }
            // Five new rows with items.
            for plain in fuzzer.rows(count: 5) {
                let row = FuzzRow(plain)
                row.text = "worker \(worker)"
                modelContext.insert(row)
                row.items = (0..<2).map { FuzzItem(title: "item \($0)", score: round) }
            }
            try modelContext.save()
            saves += 1
            mine = try modelContext.fetchIdentifiers(FetchDescriptor<FuzzRow>(
                predicate: #Predicate { $0.text == "worker \(worker)" }, sortBy: [SortDescriptor(\.persistentModelID)]))
            // Updates and a relationship edit on rows fetched by predicate: this worker's own, since
            // another deleting a row this one edits is a real conflict (its save would throw).
            let threshold = round % 7
            let name = "worker \(worker)"
            var recent = FetchDescriptor<FuzzRow>(predicate: #Predicate { $0.text == name && ($0.int > threshold || $0.flag) }, sortBy: [SortDescriptor(\.int)])
            recent.fetchLimit = 20
            let fetched = try modelContext.fetch(recent)
            for row in fetched { row.optInt = round }
            if let first = fetched.first, let last = fetched.last, first !== last, let item = first.items.first {
                item.row = last
            }
            // The oldest rows of this worker go, so that the store stays the same size.
            if mine.count > 200 {
                for id in mine.prefix(5) {
                    guard let row = self[id, as: FuzzRow.self] else { continue }
                    for item in row.items { modelContext.delete(item) }
                    modelContext.delete(row)
                }
            }
            try modelContext.save()
            saves += 1
        }
        return saves
    }
}

final class WarmUp: @unchecked Sendable {
    // @unchecked Sendable: `resident` is only touched while `lock` is held.
    private let lock = NSLock()
    private var resident = 0
    func record() { lock.withLock { resident = max(resident, residentBytes() - Int(sqlite3_memory_used())) } }
    var value: Int { lock.withLock { resident } }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let rounds = Int(arguments[3]), rounds >= 10 else {
    print("usage: MemoryProbe STORE requests|observers|lists|soak ROUNDS")
    exit(2)
}
do {
    let container = try ModelContainer(for: Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self]),
                                       configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
    let setup = ModelContext(container)
    var fuzzer = PredicateFuzzer(seed: 1)
    let row = FuzzRow(fuzzer.rows(count: 1)[0])
    setup.insert(row)
    row.items = (0..<3).map { FuzzItem(title: "item \($0)", score: $0) }
    try setup.save()

    if arguments[2] == "soak" {
        let warmUp = WarmUp()
        let saves = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                let actor = SoakWorker(modelContainer: container)
                group.addTask { try await actor.run(rounds: rounds, worker: worker, warmUp: { warmUp.record() }) }
            }
            var total = 0
            for try await saves in group { total += saves }
            return total
        }
        let reader = ModelContext(container)
        let rows = try reader.fetchCount(FetchDescriptor<FuzzRow>()) + reader.fetchCount(FetchDescriptor<FuzzItem>())
        print("\(warmUp.value) \(residentBytes() - Int(sqlite3_memory_used())) \(saves) \(rows)")
        exit(0)
    }
    var warmedUp = 0
    for round in 0..<rounds {
        if round == rounds / 10 { warmedUp = residentBytes() }
        switch arguments[2] {
        case "requests":
            guard let fetched = try ModelContext(container).fetch(FetchDescriptor<FuzzRow>()).first else { exit(1) }
            guard fetched.items.count == 3 else { exit(1) }
        case "observers":
            let observer = try ResultsObserver<FuzzItem, Never>(sortBy: [SortDescriptor(\.score)], modelContext: setup)
            guard observer.results.count == 3 else { exit(1) }
            // Let the released observers' watches end on this actor.
            if round % 100 == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        case "lists":
            let ids = Array(0...round)
            let matching = #Predicate<FuzzRow> { ids.contains($0.int) }
            _ = try ModelContext(container).fetchCount(FetchDescriptor(predicate: matching))
            _ = try setup.fetch(FetchDescriptor(predicate: matching))
        default:
            print("unknown work \(arguments[2])")
            exit(2)
        }
    }
    try await Task.sleep(nanoseconds: 50_000_000)
    print(residentBytes() - warmedUp)
} catch {
    print("error: \(error)")
    exit(1)
}
