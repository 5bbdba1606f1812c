import Dispatch
import Foundation
import PredicateFuzzing
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
import Testing

/// Saves of one new model each (a server's upserts and inserts), made through one container at the
/// same time, wait for the container's connection together and go to the server in one trip.
/// Each is still a transaction of its own: it succeeds or fails alone, and its history,
/// identifiers and errors are the ones it would have had alone.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresGroupedSaveTests {
    let proxy: CuttingProxy
    /// The namespace, reached through the proxy.
    let throughProxy: PostgresStoreConfiguration
    /// The same namespace, reached directly.
    let direct: PostgresStoreConfiguration
    let schema = Schema([Ticket.self, Desk.self])

    init() throws {
        let namespace = try ProxiedNamespace("grouped")
        (proxy, throughProxy, direct) = (namespace.proxy, namespace.throughProxy, namespace.direct)
    }

    /// The outcome of one writer's save.
    private final class Outcomes: @unchecked Sendable {
        // @unchecked Sendable: written by each writer's thread before `done.leave()`, read after
        // `done.wait()`.
        var errors: [String: SwiftDataError] = [:]
        var identifiers: [String: PersistentIdentifier] = [:]
        var failures = 0
        let lock = NSLock()
        let done = DispatchGroup()
    }

    /// Saves one new model per writer (`model(writer)`), each through its own context on its own
    /// thread, all waiting for the container's connection at once; a save that throws is made
    /// again, up to `attempts` times in all.
    private func saveTogether(
        _ writers: Int, through container: ModelContainer, attempts: Int, model: @escaping @Sendable (Int) -> any PersistentModel
    ) throws -> Outcomes {
        let entity = try #require(container.schema.entity(for: Ticket.self))
        let backend = try #require(container.store(for: entity) as? PostgresBackend)
        let outcomes = Outcomes()
        // The connection is busy: every writer's save waits for it, and the first to get it sends all.
        backend.lock.lock()
        for position in 0..<writers {
            outcomes.done.enter()
            // A thread each: a dispatch queue starts threads for blocked work only one at a time.
            Thread {
                defer { outcomes.done.leave() }
                let context = ModelContext(container)
                let new = model(position)
                context.insert(new)
                for attempt in 1...attempts {
                    do {
                        try context.save()
                        outcomes.lock.withLock { outcomes.identifiers["\(position)"] = new.persistentModelID }
                        return
                    } catch let error as SwiftDataError {
                        #expect(context.hasChanges, "a failed save keeps its changes")
                        outcomes.lock.withLock {
                            outcomes.errors["\(position)"] = error
                            outcomes.failures += 1
                        }
                        if attempt < attempts { outcomes.lock.withLock { outcomes.errors["\(position)"] = nil } }
                    } catch {
                        Issue.record("\(error)")
                        return
                    }
                }
            }.start()
        }
        var waited = 0
        while backend.waitingSaves.count < writers, waited < 1_000 {
            Thread.sleep(forTimeInterval: 0.01)
            waited += 1
        }
        #expect(backend.waitingSaves.count == writers, "every save waits for the connection")
        backend.lock.unlock()
        outcomes.done.wait()
        return outcomes
    }

    @Test func upsertsWaitingTogetherGoTogetherAndEachSucceedsOrFailsAlone() throws {
        let trips = CapturedWarnings()
        let container = try ModelContainer(
            for: schema, configurations: [direct],
            observability: .init(logger: trips.logger, slowOperationThreshold: .zero))
        let setup = ModelContext(container)
        let stored = Ticket(code: "stored", title: "first", count: 1)
        setup.insert(stored)
        try setup.save()

        // A title too large for its index: PostgreSQL refuses that row, and only that row.
        var random = SplitMix64(seed: 7)
        let huge = String((0..<5_000).map { _ in Character(UnicodeScalar(UInt8(33 + random.next() % 90))) })
        let writers: [(code: String, title: String)] = [
            ("stored", "replaced"), ("new 1", "new"), ("too large", huge), ("new 2", "new"), ("new 3", "new"), ("new 1", "again"),
        ]
        let tripsBefore = trips.slowStatements.count
        let outcomes = try saveTogether(writers.count, through: container, attempts: 1) { position in
            Ticket(code: writers[position].code, title: writers[position].title, count: position)
        }
        let upsertTrips = trips.slowStatements.dropFirst(tripsBefore).filter { $0.hasPrefix("WITH osd_") }
        #expect(upsertTrips.count == 2, "one trip for the six saves' one statement, which the row too large failed whole, then one for each alone")

        #expect(outcomes.errors.keys.sorted() == ["2"], "only the save of the row too large failed: \(outcomes.errors)")
        #expect(outcomes.errors["2"]?.reason?.contains("Ticket") == true, "\(outcomes.errors)")
        let reader = ModelContext(try ModelContainer(for: schema, configurations: [direct]))
        let tickets = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)]))
        #expect(tickets.map(\.code) == ["new 1", "new 2", "new 3", "stored"])
        #expect(tickets.first { $0.code == "stored" }?.title == "replaced")
        #expect(tickets.first { $0.code == "new 1" }.map { [1, 5].contains($0.count) } == true)
        #expect(outcomes.identifiers["0"] == stored.persistentModelID, "the upsert took over the stored row")
        #expect(outcomes.identifiers["1"] == outcomes.identifiers["5"], "both saves of \"new 1\" name its one row")
        for ticket in tickets {
            #expect(outcomes.identifiers.values.contains(ticket.persistentModelID), "\(ticket.code) is named by the save that wrote it")
        }
        let history = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 1 + 5, "one history transaction per successful save")
        let kinds = history.dropFirst().flatMap(\.changes).map { change -> String in
            switch change {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            @unknown default: "unknown"
            }
        }
        #expect(kinds.sorted() == ["insert", "insert", "insert", "update", "update"], "\(kinds)")
    }

    /// The connection is lost as the server answers the trip's first statement (here the one
    /// statement of the three upserts, kept whole). Each save learns from its own history record
    /// what became of it: one the server kept is reported saved, one it did not keep throws with
    /// nothing written and is saved again, and every row and history record is there once.
    @Test func aTripWhoseConnectionIsLostSettlesEachSaveAlone() throws {
        let container = try ModelContainer(for: schema, configurations: [throughProxy])
        let setup = ModelContext(container)
        let stored = Ticket(code: "stored", title: "first", count: 1)
        setup.insert(stored)
        try setup.save()

        proxy.cut(.afterAnswer("SELECT"))
        let writers = [("stored", "replaced"), ("new 1", "new"), ("new 2", "new")]
        let outcomes = try saveTogether(writers.count, through: container, attempts: 3) { position in
            Ticket(code: writers[position].0, title: writers[position].1, count: position)
        }
        #expect(proxy.cuts == 1)
        #expect(outcomes.errors.isEmpty, "every save succeeded, at last: \(outcomes.errors)")
        #expect(outcomes.failures <= 2, "the save the server kept is reported as saved")

        let reader = ModelContext(try ModelContainer(for: schema, configurations: [direct]))
        let tickets = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)]))
        #expect(tickets.map(\.code) == ["new 1", "new 2", "stored"], "no row twice")
        #expect(tickets.map(\.title) == ["new", "new", "replaced"])
        #expect(outcomes.identifiers["0"] == stored.persistentModelID)
        #expect(Set(tickets.map(\.persistentModelID)) == Set(outcomes.identifiers.values))
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1 + 3, "every save recorded once")
    }

    /// New models without a uniqueness constraint are inserted by one statement each, and go with
    /// the upserts waiting at the same time: one trip, each save recorded as the insert it made.
    /// Upserts of one entity that wait together are one statement: the stored row with the same
    /// code is updated and the new ones inserted, and each save's history transaction records what
    /// it wrote.
    @Test func insertsAndUpsertsWaitingTogetherGoTogether() throws {
        let trips = CapturedWarnings()
        let schema = Schema([Ticket.self, Desk.self, Poster.self])
        let container = try ModelContainer(
            for: schema, configurations: [direct], observability: .init(logger: trips.logger, slowOperationThreshold: .zero))
        let setup = ModelContext(container)
        setup.insert(Poster(label: "stored"))
        let storedTicket = Ticket(code: "stored", title: "first")
        setup.insert(storedTicket)
        try setup.save()

        let tripsBefore = trips.slowStatements.count
        let outcomes = try saveTogether(6, through: container, attempts: 1) { position in
            if position % 2 == 0 { return Poster(label: "poster \(position)") }
            return Ticket(code: position == 1 ? "stored" : "ticket \(position)", title: "new", count: position)
        }
        // A trip is reported under its last statement: the upserts' or an insert's, either way one
        // that writes rows and their history records at once.
        let saveTrips = trips.slowStatements.dropFirst(tripsBefore).filter { ["WITH osd_found", "WITH osd_write", "WITH osd_input"].contains(where: $0.hasPrefix) }
        #expect(saveTrips.count == 1, "the six saves went to the server in one trip: \(trips.slowStatements.dropFirst(tripsBefore))")
        #expect(outcomes.errors.isEmpty, "\(outcomes.errors)")

        let reader = ModelContext(try ModelContainer(for: schema, configurations: [direct]))
        let posters = try reader.fetch(FetchDescriptor<Poster>(sortBy: [SortDescriptor(\.label)]))
        let tickets = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)]))
        #expect(posters.map(\.label) == ["poster 0", "poster 2", "poster 4", "stored"])
        #expect(tickets.map(\.code) == ["stored", "ticket 3", "ticket 5"])
        #expect(tickets.first?.title == "new" && tickets.first?.persistentModelID == storedTicket.persistentModelID, "the stored ticket was updated")
        for position in 0..<6 {
            let stored = position % 2 == 0
                ? posters.first { $0.label == "poster \(position)" }?.persistentModelID
                : tickets.first { $0.code == (position == 1 ? "stored" : "ticket \(position)") }?.persistentModelID
            #expect(stored != nil && outcomes.identifiers["\(position)"] == stored, "writer \(position) names the row it wrote")
        }
        let history = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 1 + 6, "one history transaction per save")
        var updated: [PersistentIdentifier] = []
        for transaction in history.dropFirst() {
            #expect(transaction.changes.count == 1)
            switch transaction.changes.first {
            case .insert(let inserted)?:
                #expect(outcomes.identifiers.values.contains(inserted.changedPersistentIdentifier))
            case .update(let update)?:
                updated.append(update.changedPersistentIdentifier)
            default:
                Issue.record("\(transaction.changes)")
            }
        }
        #expect(updated == [storedTicket.persistentModelID], "the upsert of the stored code is recorded as its update")
    }

    /// More upserts wait together than one statement makes (``PostgresBackend/largestUpsertBatch``):
    /// they go as one statement per batch, each written for its number of rows, and every save
    /// lands with a history transaction of its own, round after round. Made again and again,
    /// each statement keeps its generic plan instead of being planned at each execution.
    @Test func moreUpsertsThanOneStatementMakesGoAsSeveralThatKeepTheirPlans() throws {
        let container = try ModelContainer(for: schema, configurations: [direct])
        // Enough stored rows for PostgreSQL to price a plan for more rows than it is given above
        // one for fewer (with a handful of rows, every plan costs about the same).
        let setup = ModelContext(container)
        for number in 0..<5_000 { setup.insert(Ticket(code: "stored \(number)", title: "stored")) }
        try setup.save()
        let writers = PostgresBackend.largestUpsertBatch + 2
        let rounds = 8
        var identifiers: [String: PersistentIdentifier] = [:]
        for round in 0..<rounds {
            let outcomes = try saveTogether(writers, through: container, attempts: 1) { position in
                Ticket(code: "ticket \(position)", title: "round \(round)", count: round)
            }
            #expect(outcomes.errors.isEmpty, "round \(round): \(outcomes.errors)")
            #expect(Set(outcomes.identifiers.values).count == writers, "round \(round): each save names a row of its own")
            if round > 0 { #expect(outcomes.identifiers == identifiers, "round \(round): each code keeps its row") }
            identifiers = outcomes.identifiers
        }

        let reader = ModelContext(try ModelContainer(for: schema, configurations: [direct]))
        let tickets = try reader.fetch(FetchDescriptor<Ticket>())
        let written = tickets.filter { $0.code.hasPrefix("ticket") }
        #expect(written.count == writers && tickets.count == writers + 5_000)
        #expect(written.allSatisfy { $0.title == "round \(rounds - 1)" && $0.count == rounds - 1 }, "the last round's values")
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1 + writers * rounds, "one history transaction per save")

        let entity = try #require(container.schema.entity(for: Ticket.self))
        let backend = try #require(container.store(for: entity) as? PostgresBackend)
        let plans = try backend.withSession { session in
            try session.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'WITH osd_input%'").map {
                (generic: PostgresRowReader($0)._int64(0), custom: PostgresRowReader($0)._int64(1))
            }
        }
        #expect(plans.count == 2, "a statement for the first \(PostgresBackend.largestUpsertBatch) saves and one for the rest: \(plans)")
        for plan in plans {
            #expect(plan.generic + plan.custom == Int64(rounds), "\(plans)")
            #expect(plan.generic >= 1, "PostgreSQL kept a generic plan: \(plans)")
        }
    }

    /// Rounds of saves made together (upserts of a few shared codes and of new ones, inserts of
    /// models without a uniqueness constraint), with the connection lost at a random moment of
    /// about half of the rounds. A save either succeeds or throws with its changes kept and is
    /// made again. After every round the server holds each code once, with a title a successful
    /// save of its latest round gave it, every poster once, and one history transaction per
    /// successful save; each save's identifier names the row it wrote.
    @Test(arguments: [31, 32] as [UInt64])
    func randomSavesTogetherWithLostConnectionsLoseAndRepeatNothing(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let schema = Schema([Ticket.self, Desk.self, Poster.self])
        let container = try ModelContainer(for: schema, configurations: [throughProxy])
        let reader = ModelContext(try ModelContainer(for: schema, configurations: [direct]))
        let cuts: [CuttingProxy.Cut] = [.afterAnswer("SELECT"), .afterCommit]
        var titles: [String: Set<String>] = [:]   // code → the titles its latest round's successful saves gave it
        var ticketIDs: [String: PersistentIdentifier] = [:]
        var posters = 0
        var saves = 0
        for round in 0..<6 {
            // Each writer: a ticket (a shared code or a new one) or a poster.
            let plan: [(ticket: Bool, name: String, title: String)] = (0..<6).map { writer in
                let title = "round \(round) writer \(writer)"
                switch random.next() % 3 {
                case 0: return (true, ["a", "b", "c"][Int(random.next() % 3)], title)
                case 1: return (true, "new \(round)-\(writer)", title)
                default: return (false, title, title)
                }
            }
            if random.next() % 2 == 0 { proxy.cut(cuts[Int(random.next() % UInt64(cuts.count))]) }
            let outcomes = try saveTogether(plan.count, through: container, attempts: 4) { position in
                let writer = plan[position]
                if writer.ticket { return Ticket(code: writer.name, title: writer.title, count: round) }
                return Poster(label: writer.name)
            }
            proxy.disarm()
            #expect(outcomes.errors.isEmpty, "seed \(seed), round \(round): \(outcomes.errors)")
            var roundTitles: [String: Set<String>] = [:]
            for (position, writer) in plan.enumerated() where outcomes.identifiers["\(position)"] != nil {
                saves += 1
                if writer.ticket { roundTitles[writer.name, default: []].insert(writer.title) } else { posters += 1 }
            }
            titles.merge(roundTitles) { _, latest in latest }

            let tickets = try reader.fetch(FetchDescriptor<Ticket>())
            #expect(Set(tickets.map(\.code)).count == tickets.count, "seed \(seed), round \(round): no code twice")
            #expect(Set(tickets.map(\.code)) == Set(titles.keys), "seed \(seed), round \(round)")
            for ticket in tickets {
                #expect(titles[ticket.code]?.contains(ticket.title) == true, "seed \(seed), round \(round): \(ticket.code) holds \(ticket.title)")
                if let known = ticketIDs[ticket.code] { #expect(known == ticket.persistentModelID, "a code keeps its row") }
                ticketIDs[ticket.code] = ticket.persistentModelID
            }
            for (position, writer) in plan.enumerated() where writer.ticket {
                #expect(outcomes.identifiers["\(position)"] == ticketIDs[writer.name], "seed \(seed), round \(round): writer \(position) names its code's row")
            }
            let storedPosters = try reader.fetch(FetchDescriptor<Poster>())
            #expect(storedPosters.count == posters && Set(storedPosters.map(\.label)).count == posters, "seed \(seed), round \(round): every poster once")
            #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == saves, "seed \(seed), round \(round): one history transaction per save")
        }
        #expect(proxy.cuts >= 1, "seed \(seed): the connection was lost at least once")
    }
}
