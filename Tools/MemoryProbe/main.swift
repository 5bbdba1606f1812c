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

/// The resident memory of this process in bytes (Linux: `/proc/self/statm`; 0 where unavailable).
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let rounds = Int(arguments[3]), rounds >= 10 else {
    print("usage: MemoryProbe STORE requests|observers ROUNDS")
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
