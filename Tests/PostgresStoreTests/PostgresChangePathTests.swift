import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import PostgresNIO
import Testing

/// Saves of other containers (other connections, as other processes or servers make them) reach
/// a container through `NOTIFY`, its history, and its live queries; lost connections and lost
/// races surface as errors or retries, never as half-written saves.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresChangePathTests {
    let configuration: PostgresStoreConfiguration

    init() throws {
        configuration = try PostgresServer.freshConfiguration("change")
    }

    func container() throws -> ModelContainer {
        try ModelContainer(for: Schema([Ticket.self, Desk.self]), configurations: [configuration])
    }

    @MainActor
    @Test func anotherContainersSaveReachesTheObserverAndTheHistory() async throws {
        let mine = try container()
        let setup = ModelContext(mine)
        setup.insert(Ticket(code: "a", title: "first"))
        try setup.save()
        let observer = try ResultsObserver<Ticket, Never>(sortBy: [SortDescriptor(\.code)], modelContainer: mine)
        #expect(observer.results.map(\.code) == ["a"])

        let other = ModelContext(try container())
        other.author = "server 2"
        other.insert(Ticket(code: "b", title: "second"))
        try other.save()

        for _ in 0..<3_000 where observer.results.count < 2 {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(observer.results.map(\.code) == ["a", "b"], "the other connection's save arrived by NOTIFY")
        let history = try setup.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 2)
        #expect(history.last?.author == "server 2")
        #expect(history.map(\.token).sorted() == history.map(\.token))
    }

    /// A save whose only write is one statement (one new row, one changed row, a deletion) is one
    /// statement on the server (the write, the history record and the announcement together):
    /// each is recorded once, in order, and reaches other containers.
    @MainActor
    @Test func oneStatementSavesAreRecordedAndAnnouncedEachOnce() async throws {
        let configuration = try PostgresServer.freshConfiguration("onerow")
        let schema = Schema([Poster.self])
        let watching = try ModelContainer(for: schema, configurations: [configuration])
        let observer = try ResultsObserver<Poster, Never>(sortBy: [SortDescriptor(\.label)], modelContainer: watching)
        let writer = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        writer.author = "writer"
        var posters: [Poster] = []
        for number in 0..<20 {
            posters.append(Poster(label: String(format: "poster %02d", number)))
            writer.insert(posters[number])
            try writer.save()
        }
        for number in stride(from: 0, to: 20, by: 2) {
            posters[number].label = String(format: "changed %02d", number)
            try writer.save()
        }
        writer.delete(posters[19])
        try writer.save()
        let expected = posters.dropLast().map(\.label).sorted()
        for _ in 0..<3_000 where observer.results.map(\.label) != expected {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(observer.results.map(\.label) == expected)
        let history = try ModelContext(watching).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 31)
        #expect(history.allSatisfy { $0.author == "writer" && $0.changes.count == 1 })
        let changed = history.compactMap { transaction -> PersistentIdentifier? in
            switch transaction.changes.first {
            case .insert(let insert): insert.changedPersistentIdentifier
            case .update(let update): update.changedPersistentIdentifier
            case .delete(let delete): delete.changedPersistentIdentifier
            default: nil
            }
        }
        let expectedOrder = posters.map(\.persistentModelID) + stride(from: 0, to: 20, by: 2).map { posters[$0].persistentModelID } + [posters[19].persistentModelID]
        #expect(changed == expectedOrder, "the history names each row, in save order")
        let reader = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        #expect(try reader.fetch(FetchDescriptor<Poster>(sortBy: [SortDescriptor(\.label)])).map(\.label) == expected)
    }

    /// One-statement saves and saves of several statements change the same row at once: each
    /// save lands once, whole, and the row ends with the last writer's value. (Every save locks
    /// the rows it writes before the history counter, so they queue rather than deadlock.)
    @Test func oneStatementSavesAndLongerSavesOfTheSameRowAllLand() async throws {
        let configuration = try PostgresServer.freshConfiguration("interleave")
        let schema = Schema([Poster.self])
        let setup = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        let original = Poster(label: "shared")
        setup.insert(original)
        try setup.save()
        let sharedID = original.persistentModelID
        let rounds = 100
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    let context = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
                    let shared = try #require(context.model(for: sharedID) as? Poster)
                    for round in 0..<rounds {
                        shared.label = "shared \(writer) \(round)"
                        // Writer 1's saves are two statements (a new row, then the change).
                        if writer == 1 { context.insert(Poster(label: "new \(round)")) }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let reader = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        let labels = try reader.fetch(FetchDescriptor<Poster>()).map(\.label)
        #expect(labels.filter { $0.hasPrefix("new ") }.count == rounds)
        let shared = labels.filter { $0.hasPrefix("shared") }
        #expect(shared.count == 1)
        #expect(shared.first.map { $0.hasSuffix(" \(rounds - 1)") } == true, "the last writer's value: \(shared)")
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1 + 2 * rounds)
    }

    /// Four writers on containers of their own, each saving one new ticket per round for 25 rounds.
    func saveConcurrently(_ ticket: @escaping @Sendable (_ writer: Int, _ round: Int) -> Ticket) async throws {
        _ = try container()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let context = ModelContext(try self.container())
                    for round in 0..<25 {
                        context.insert(ticket(writer, round))
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func concurrentUpsertsOfOneUniqueKeyEndAsOneRow() async throws {
        try await saveConcurrently { writer, round in Ticket(code: "shared", title: "writer \(writer) round \(round)", count: round) }
        let tickets = try ModelContext(try container()).fetch(FetchDescriptor<Ticket>())
        #expect(tickets.count == 1, "every insert of the same unique code became an upsert")
        #expect(tickets.first?.count == 24)
    }

    /// A save of one new model of an entity with one uniqueness constraint is one statement (the
    /// look-up, the write and the history record): its history names an insert of a new row, or an
    /// update of the stored row with the same values, whatever the row's key (keys of one byte
    /// and of several in the record), and `didSave` says the same.
    @MainActor
    @Test func aSaveOfOneUniqueModelRecordsWhatItWrote() throws {
        let writer = ModelContext(try container())
        for number in 0..<300 { writer.insert(Ticket(code: "code \(number)", title: "first", count: number)) }
        try writer.save()
        // A row whose key takes five bytes in the record: the sequence moved on, a new container
        // draws from it.
        try PostgresServer.sql("SELECT setval('\"\(configuration.name)\".\"osd_keys_Ticket\"', 5000000000)")
        let far = ModelContext(try container())
        far.insert(Ticket(code: "code 300", title: "first", count: 300))
        try far.save()
        let stored = try writer.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.count)]))
        #expect(stored.count == 301)
        let upserter = ModelContext(try container())
        let saved = AnnouncedSaves()
        let observation = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: upserter, queue: nil) { notification in
            let info = notification.userInfo ?? [:]
            saved.append(inserted: info[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? [],
                         updated: info[ModelContext.NotificationKey.updatedIdentifiers.rawValue] as? [PersistentIdentifier] ?? [])
        }
        defer { NotificationCenter.default.removeObserver(observation) }

        var expected: [(kind: String, id: PersistentIdentifier)] = []
        for number in [0, 1, 127, 128, 299, 300] {
            let ticket = Ticket(code: "code \(number)", title: "replaced", count: 1_000 + number)
            upserter.insert(ticket)
            try upserter.save()
            #expect(ticket.persistentModelID == stored[number].persistentModelID, "the upsert took over the stored row")
            expected.append(("update", ticket.persistentModelID))
        }
        let new = Ticket(code: "code new", title: "new", count: 5_000)
        upserter.insert(new)
        try upserter.save()
        expected.append(("insert", new.persistentModelID))

        let history = try ModelContext(try container()).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let recorded = history.suffix(7).map { transaction -> [(kind: String, id: PersistentIdentifier)] in
            transaction.changes.map { change in
                switch change {
                case .insert(let insert): ("insert", insert.changedPersistentIdentifier)
                case .update(let update): ("update", update.changedPersistentIdentifier)
                case .delete(let delete): ("delete", delete.changedPersistentIdentifier)
                @unknown default: ("unknown", change.changedPersistentIdentifier)
                }
            }
        }
        #expect(recorded.map { $0.map(\.kind) } == expected.map { [$0.kind] })
        #expect(recorded.map { $0.map(\.id) } == expected.map { [$0.id] })
        let announced = saved.all
        #expect(announced.map(\.updated) == expected.map { $0.kind == "update" ? [$0.id] : [] })
        #expect(announced.map(\.inserted) == expected.map { $0.kind == "insert" ? [$0.id] : [] })

        let reader = ModelContext(try container())
        let tickets = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.count)]))
        #expect(tickets.count == 302)
        #expect(tickets.filter { $0.title == "replaced" }.map(\.count) == [1_000, 1_001, 1_127, 1_128, 1_299, 1_300])
        #expect(try #require(tickets.first { $0.code == "code 300" }).persistentModelID.id.description == "p5000000001")
        #expect(tickets.last?.code == "code new")
    }

    /// Writers racing to insert the same new unique values: a loser's insert finds the value
    /// taken by a row committed after its look-up, and its save runs again as an upsert.
    @Test func concurrentInsertsOfNewUniqueKeysEndAsOneRowEach() async throws {
        try await saveConcurrently { writer, round in Ticket(code: "key \(round)", title: "writer \(writer)", count: round) }
        let reader = ModelContext(try container())
        let tickets = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.count)]))
        #expect(tickets.map(\.count) == Array(0..<25), "one row per code, each code's writers' inserts upserts of it")
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 100, "every save recorded once")
    }

    @Test func aLostConnectionFailsTheSaveInFlightAndTheNextSaveSucceeds() throws {
        let mine = try container()
        let context = ModelContext(mine)
        context.insert(Ticket(code: "before", title: "saved"))
        try context.save()
        // The server ends the store's connection, as a restart would.
        let ended = try PostgresServer.sql("SELECT count(pg_terminate_backend(pid))::text FROM pg_stat_activity WHERE application_name = 'OpenSwiftData \(configuration.name)'")
        #expect(ended != ["0"])
        // pg_terminate_backend only signals the server process: wait until it is gone, so that the
        // save below meets a dead connection rather than racing the server's exit.
        var attempts = 0
        while try PostgresServer.sql("SELECT count(*)::text FROM pg_stat_activity WHERE application_name = 'OpenSwiftData \(configuration.name)'") != ["0"], attempts < 500 {
            attempts += 1
            Thread.sleep(forTimeInterval: 0.01)
        }
        context.insert(Ticket(code: "after", title: "saved once"))
        do {
            try context.save()
        } catch let error as SwiftDataError {
            #expect(error == .storeUnavailable, "\(error)")
            #expect(context.hasChanges, "the failed save keeps the context's changes")
            try context.save()
        }
        let codes = try ModelContext(try container()).fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)])).map(\.code)
        #expect(codes == ["after", "before"])
    }

    @Test func aConnectionLostBetweenTwoStatementsOfASaveKeepsNothingOfIt() throws {
        let configuration = try PostgresServer.freshConfiguration("wired")
        let container = try ModelContainer(for: Schema([Wired.self]), configurations: [configuration])
        let context = ModelContext(container)
        for number in 0..<3 { context.insert(Wired(label: "row \(number)")) }
        // The keys are drawn, then encoding the rows cuts the connection mid-transaction.
        Tripwire.action = {
            _ = try? PostgresServer.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'OpenSwiftData \(configuration.name)'")
        }
        #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
        Tripwire.action = nil
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM \(configuration.name).\"Wired\"") == ["0"], "no statement ran outside the transaction")
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM \(configuration.name).osd_history") == ["0"])
        #expect(context.hasChanges)
        try context.save()
        let labels = try ModelContext(try ModelContainer(for: Schema([Wired.self]), configurations: [configuration]))
            .fetch(FetchDescriptor<Wired>()).map(\.wire.label).sorted()
        #expect(labels == ["row 0", "row 1", "row 2"])
    }

    /// The store blocks its caller until the server answers, and SwiftNIO delivers the answer on
    /// an event loop: called on one, it would wait for itself. It throws instead, and the
    /// context keeps its changes for a save from elsewhere.
    @Test func aCallFromAnEventLoopThreadThrowsInsteadOfWaitingForItself() throws {
        let mine = try container()
        let outcome = try MultiThreadedEventLoopGroup.singleton.any().submit { () -> [String] in
            let context = ModelContext(mine)
            context.insert(Ticket(code: "loop", title: "from an event loop"))
            var messages: [String] = []
            for attempt in [{ _ = try context.fetchCount(FetchDescriptor<Ticket>()) }, { try context.save() }] {
                do {
                    try attempt()
                    messages.append("no error")
                } catch {
                    messages.append("\(error)")
                }
            }
            messages.append(context.hasChanges ? "kept" : "lost")
            return messages
        }.wait()
        #expect(outcome.count == 3)
        #expect(outcome.prefix(2).allSatisfy { $0.contains("SwiftNIO event loop thread") }, "\(outcome)")
        #expect(outcome.last == "kept")
        #expect(try ModelContext(mine).fetchCount(FetchDescriptor<Ticket>()) == 0, "nothing was written from the event loop")
    }

    @Test func textComparesAndSortsAsSwiftDoes() throws {
        let texts = ["e\u{301}", "é", "E", "e", "\u{212A}", "K", "a\u{30A}", "å", "Ω", "\u{2126}", "z", "", "👨‍👩‍👧", "line\r\n"]
        let context = ModelContext(try container())
        for (index, text) in texts.enumerated() { context.insert(Ticket(code: "\(index)", title: text)) }
        try context.save()
        let reader = ModelContext(try container())
        let sorted = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title), SortDescriptor(\.code)]))
        // Swift's order: canonically equivalent strings are equal (tied by code), else by the NFC scalars.
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.title < $1.title || ($0.title == $1.title && Int($0.code)! < Int($1.code)!) })
        for probe in ["é", "Ω", "K", "å", "e"] {
            let equal = try reader.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.title == probe })).map(\.title)
            #expect(Set(equal) == Set(texts.filter { $0 == probe }), "== \(probe)")
            let less = try reader.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.title < probe }))
            #expect(less == texts.filter { $0 < probe }.count, "< \(probe)")
        }
        // Character-based functions run in Swift, with Swift's answers.
        let contains = try reader.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.title.contains("e") })).map(\.title)
        #expect(Set(contains) == Set(texts.filter { $0.contains("e") }))
    }

    @Test func floatingPointValuesAreExactAndNaNIsUnequal() throws {
        let values: [Double] = [.nan, -.nan, Double(bitPattern: 0x7FF8_0000_0000_1234), .infinity, -.infinity, -0.0, 0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1.0 / 3]
        let context = ModelContext(try container())
        for (index, value) in values.enumerated() { context.insert(Ticket(code: "\(index)", title: "", score: value)) }
        try context.save()
        let reader = ModelContext(try container())
        let stored = try reader.fetch(FetchDescriptor<Ticket>()).sorted { Int($0.code)! < Int($1.code)! }.map(\.score.bitPattern)
        #expect(stored == values.map(\.bitPattern))
        let nan = Double.nan
        #expect(try reader.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.score == nan })) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.score != nan })) == values.count)
        #expect(try reader.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.score > 0 })) == values.filter { $0 > 0 }.count)
        let zero = 0.0
        #expect(try reader.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.score == zero })) == 2, "-0.0 == 0.0")
    }

    @Test func cascadeAndHistoryFollowADeletionByPredicate() throws {
        let context = ModelContext(try container())
        let desk = Desk(name: "front")
        context.insert(desk)
        for number in 0..<5 {
            let ticket = Ticket(code: "t\(number)", title: "ticket")
            context.insert(ticket)
            ticket.owner = desk
        }
        try context.save()
        let other = ModelContext(try container())
        try other.delete(model: Desk.self, where: #Predicate { $0.name == "front" })
        try other.save()
        let reader = ModelContext(try container())
        #expect(try reader.fetchCount(FetchDescriptor<Desk>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Ticket>()) == 0, "the cascade reached every ticket")
        let last = try #require(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(last.changes.count == 6)
    }
}

/// The identifiers `didSave` announced, save by save.
private final class AnnouncedSaves: @unchecked Sendable {
    // @unchecked Sendable: `saves` is only used while `lock` is held.
    private let lock = NSLock()
    private var saves: [(inserted: [PersistentIdentifier], updated: [PersistentIdentifier])] = []

    func append(inserted: [PersistentIdentifier], updated: [PersistentIdentifier]) {
        lock.withLock { saves.append((inserted, updated)) }
    }

    var all: [(inserted: [PersistentIdentifier], updated: [PersistentIdentifier])] {
        lock.withLock { saves }
    }
}
