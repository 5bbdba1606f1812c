import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import PredicateFuzzing

// Another process writing to a store, for the tests of changes made by other processes.
//
// STORE is a store file's path, or `postgres:NAME` for the PostgreSQL configuration NAME on the
// server OSD_POSTGRES_URL names.
//
//   HistoryWriter STORE edit     rank of "first" → 99 (or +1), insert "second", delete "doomed"
//   HistoryWriter STORE loop     saves of ten new owners each, until killed
//   HistoryWriter STORE contend SAVES TOTAL NAME
//                                SAVES saves, each inserting owner "NAME-seq" (rank seq) and setting
//                                the rank of one of the owners "shared-0…3" to seq; then waits until
//                                it sees TOTAL owners named other than "shared-…" and prints "ok"

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: HistoryWriter STORE edit|loop|contend SAVES TOTAL NAME")
    exit(2)
}
do {
    let configuration: any DataStoreConfiguration
    if arguments[1].hasPrefix("postgres:"), let server = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"].flatMap(URL.init(string:)) {
        configuration = PostgresStoreConfiguration(name: String(arguments[1].dropFirst("postgres:".count)), url: server)
    } else {
        configuration = ModelConfiguration(url: URL(fileURLWithPath: arguments[1]))
    }
    let container = try ModelContainer(for: Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self]), configurations: [configuration])
    let context = ModelContext(container)
    context.author = "helper"
    switch arguments[2] {
    case "edit":
        let owners = try context.fetch(FetchDescriptor<FuzzOwner>())
        for owner in owners where owner.name == "first" { owner.rank = owner.rank == 1 ? 99 : owner.rank + 1 }
        for owner in owners where owner.name == "doomed" { context.delete(owner) }
        if !owners.contains(where: { $0.name == "second" }) { context.insert(FuzzOwner(name: "second", rank: 2)) }
        try context.save()
        print("saved")
    case "loop":
        // Until killed, or until the process that started it is gone (a crashed test run must not
        // leave it writing for ever); a context per batch, so that memory stays flat.
        let parent = getppid()
        var batch = 0
        while getppid() == parent {
            let batchContext = ModelContext(context.container)
            batchContext.author = context.author
            for number in 0..<10 { batchContext.insert(FuzzOwner(name: "loop-\(batch)-\(number)", rank: batch)) }
            try batchContext.save()
            batch += 1
            if batch == 1 { print("started") }
        }
    case "contend" where arguments.count == 6:
        guard let saves = Int(arguments[3]), let total = Int(arguments[4]) else { exit(2) }
        let name = arguments[5]
        // "shared-…" sorts before "t", "writer…" after: comparisons every store runs in its own
        // query language (a Character-based `starts(with:)` may run in Swift, row by row).
        let shared = try context.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name < "t" }))
        guard shared.count == 4 else {
            print("error: \(shared.count) shared owners")
            exit(1)
        }
        for seq in 0..<saves {
            context.insert(FuzzOwner(name: "\(name)-\(seq)", rank: seq))
            shared[seq % shared.count].rank = seq
            try context.save()
        }
        let others = FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name > "t" })
        for _ in 0..<1_000 where try context.fetchCount(others) < total { Thread.sleep(forTimeInterval: 0.01) }
        print(try context.fetchCount(others) == total ? "ok" : "saw \(try context.fetchCount(others)) of \(total)")
    default:
        print("unknown action \(arguments[2])")
        exit(2)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
