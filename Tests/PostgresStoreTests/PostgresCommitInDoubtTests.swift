import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import PredicateFuzzing
import Testing

/// A connection lost at the worst moment: after the server committed a save, before the store
/// heard so. The store asks the server what became of the save, so a save the server kept is
/// reported as saved (and never written twice), and one it did not keep throws with nothing
/// written. A proxy between the store and the server (`CuttingProxy`) loses the connection on cue.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresCommitInDoubtTests {
    let proxy: CuttingProxy
    /// The namespace, reached through the proxy.
    let throughProxy: PostgresStoreConfiguration
    /// The same namespace, reached directly: what the server really holds.
    let direct: PostgresStoreConfiguration

    init() throws {
        let namespace = try ProxiedNamespace("doubt")
        (proxy, throughProxy, direct) = (namespace.proxy, namespace.throughProxy, namespace.direct)
    }

    func container(_ configuration: PostgresStoreConfiguration) throws -> ModelContainer {
        try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
    }

    /// What the server holds: each label and how many rows have it, and the number of history
    /// transactions.
    func stored() throws -> (labels: [String: Int], transactions: Int) {
        let context = ModelContext(try container(direct))
        var labels: [String: Int] = [:]
        for poster in try context.fetch(FetchDescriptor<Poster>()) { labels[poster.label, default: 0] += 1 }
        return (labels, try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count)
    }

    @Test func aOneRowSaveWhoseReplyIsLostIsSavedOnce() throws {
        let context = ModelContext(try container(throughProxy))
        let poster = Poster(label: "one")
        context.insert(poster)
        proxy.cut(.afterCommit)
        try context.save()
        #expect(proxy.cuts == 1, "the connection was lost after the server committed")
        #expect(!context.hasChanges)
        #expect(try stored().labels == ["one": 1])
        #expect(try stored().transactions == 1)

        // The model is saved: it changes and deletes like any other, through a new connection.
        poster.label = "one, changed"
        context.insert(Poster(label: "two"))
        try context.save()
        #expect(try stored().labels == ["one, changed": 1, "two": 1])
        let other = ModelContext(try container(direct))
        #expect((other.model(for: poster.persistentModelID) as? Poster)?.label == "one, changed")
    }

    @Test func aLongerSaveWhoseCommitReplyIsLostIsSavedOnce() throws {
        let context = ModelContext(try container(throughProxy))
        let first = Poster(label: "first")
        context.insert(first)
        try context.save()
        for index in 0..<300 { context.insert(Poster(label: "batch \(index)")) }
        first.label = "first, changed"
        proxy.cut(.afterCommit)
        try context.save()
        #expect(proxy.cuts == 1)
        let (labels, transactions) = try stored()
        #expect(labels.count == 301)
        #expect(labels.values.allSatisfy { $0 == 1 }, "no row twice")
        #expect(labels["first, changed"] == 1)
        #expect(transactions == 2)
        #expect(!context.hasChanges)
    }

    /// A new model of an entity with a uniqueness constraint travels with the commit (its key
    /// drawn ahead, once the look-up found no row with its values), beside an upsert of a stored
    /// row and a new model relating to both.
    @Test func newAndUpsertedUniqueModelsWhoseCommitReplyIsLostAreSavedOnce() throws {
        let schema = Schema([Ticket.self, Desk.self])
        let context = ModelContext(try ModelContainer(for: schema, configurations: [throughProxy]))
        context.insert(Ticket(code: "A", title: "first"))
        try context.save()
        let desk = Desk(name: "front")
        let new = Ticket(code: "B", title: "new")
        let upserted = Ticket(code: "A", title: "replaced")
        context.insert(desk)
        context.insert(new)
        context.insert(upserted)
        desk.tickets = [new, upserted]
        proxy.cut(.afterCommit)
        try context.save()
        #expect(proxy.cuts == 1, "the connection was lost after the server committed")
        #expect(!context.hasChanges)

        let reader = ModelContext(try ModelContainer(for: schema, configurations: [direct]))
        let tickets = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)]))
        #expect(tickets.map(\.code) == ["A", "B"], "no row twice")
        #expect(tickets.map(\.title) == ["replaced", "new"])
        #expect(tickets.allSatisfy { $0.owner?.name == "front" })
        #expect((reader.model(for: new.persistentModelID) as? Ticket)?.title == "new")
        #expect((reader.model(for: upserted.persistentModelID) as? Ticket)?.title == "replaced")
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }

    /// A save of one unique model alone is one statement; when its reply is lost after the server
    /// kept it, the store learns from the history record which row it wrote: the stored row it
    /// updated, or the new one.
    @Test func oneStatementUpsertsWhoseRepliesAreLostAreSavedOnce() throws {
        let schema = Schema([Ticket.self, Desk.self])
        let context = ModelContext(try ModelContainer(for: schema, configurations: [throughProxy]))
        let first = Ticket(code: "A", title: "first")
        context.insert(first)
        try context.save()

        let replacing = Ticket(code: "A", title: "replaced")
        context.insert(replacing)
        // The statement commits by itself: its answer is the statement's own, a SELECT's.
        proxy.cut(.afterAnswer("SELECT"))
        try context.save()
        #expect(proxy.cuts == 1)
        #expect(replacing.persistentModelID == first.persistentModelID, "the upsert took over the stored row")

        let new = Ticket(code: "B", title: "new")
        context.insert(new)
        proxy.cut(.afterAnswer("SELECT"))
        try context.save()
        #expect(proxy.cuts == 2)
        #expect(!context.hasChanges)

        let reader = ModelContext(try ModelContainer(for: schema, configurations: [direct]))
        let tickets = try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)]))
        #expect(tickets.map(\.title) == ["replaced", "new"], "no row twice")
        #expect(tickets.map(\.persistentModelID) == [first.persistentModelID, new.persistentModelID])
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 3)
    }

    @Test func aSaveWhoseCommitNeverReachedTheServerThrowsAndSavesOnceAgain() throws {
        let context = ModelContext(try container(throughProxy))
        for index in 0..<20 { context.insert(Poster(label: "poster \(index)")) }
        proxy.cut(.beforeCommit)
        #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
        #expect(proxy.cuts == 1)
        #expect(try stored().labels.isEmpty, "nothing was written")
        #expect(try stored().transactions == 0)
        #expect(context.insertedModelsArray.count == 20, "the context keeps its changes")

        try context.save()
        let labels = try stored().labels
        #expect(labels.count == 20)
        #expect(labels.values.allSatisfy { $0 == 1 })
    }

    @Test func aSaveCutBeforeItCommitsThrowsAndSavesOnceAgain() throws {
        let context = ModelContext(try container(throughProxy))
        for index in 0..<20 { context.insert(Poster(label: "poster \(index)")) }
        proxy.cut(.insideTransaction)
        #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
        #expect(try stored().labels.isEmpty)
        try context.save()
        #expect(try stored().labels.count == 20)
        #expect(try stored().transactions == 1)
    }

    /// When the server cannot be asked (it stays out of reach longer than the store waits, here
    /// the configuration's three seconds), the save's outcome is unknown and it says so; saving
    /// the same new models again first asks, and refuses to write them twice.
    @Test func aSaveWhoseOutcomeCannotBeLearnedIsNotWrittenTwice() throws {
        var configuration = throughProxy
        configuration.commitOutcomeTimeout = 3
        let context = ModelContext(try container(configuration))
        let poster = Poster(label: "in doubt")
        context.insert(poster)
        proxy.cut(.afterCommit, thenRefuse: true)
        let unknown = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(unknown == .storeUnavailable)
        #expect(unknown?.reason?.contains("unknown") == true, "\(String(describing: unknown))")
        #expect(try stored().labels == ["in doubt": 1], "the server kept it")

        proxy.refuseConnections(false)
        let kept = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(kept == .storeFailure)
        #expect(kept?.reason?.contains("kept by the server after all") == true, "\(String(describing: kept))")
        #expect(try stored().labels == ["in doubt": 1], "not inserted twice")

        context.rollback()
        let fetched = try context.fetch(FetchDescriptor<Poster>())
        #expect(fetched.map(\.label) == ["in doubt"])
        // Another save of other models goes through.
        context.insert(Poster(label: "after"))
        try context.save()
        #expect(try stored().labels == ["in doubt": 1, "after": 1])
    }

    /// A save waits as long as its configuration's `commitOutcomeTimeout` to learn whether the
    /// server kept it: a server back within the default ten seconds, but after the one second
    /// configured, leaves the outcome unknown, and a save configured to wait a minute for the
    /// same outage learns that it was kept.
    @Test func aSaveWaitsForItsOutcomeAsLongAsItsConfigurationSays() throws {
        var brief = throughProxy
        brief.commitOutcomeTimeout = 1
        let impatient = ModelContext(try container(brief))
        impatient.insert(Poster(label: "brief"))
        proxy.cut(.afterCommit, thenRefuseFor: 6)
        let unknown = #expect(throws: SwiftDataError.self) { try impatient.save() }
        #expect(unknown == .storeUnavailable)
        #expect(unknown?.reason?.contains("unknown") == true, "\(String(describing: unknown))")
        proxy.refuseConnections(false)

        var patient = throughProxy
        patient.commitOutcomeTimeout = 60
        let context = ModelContext(try container(patient))
        context.insert(Poster(label: "patient"))
        let refusedBefore = proxy.refusals
        proxy.cut(.afterCommit, thenRefuseFor: 2)
        try context.save()
        #expect(proxy.refusals > refusedBefore, "the store asked while the server was out of reach")
        #expect(try stored().labels == ["brief": 1, "patient": 1], "each kept once")
        #expect(context.hasChanges == false)
    }

    /// A deletion by predicate and a one-row change whose commit replies are lost are kept once,
    /// and the context sees them as saved.
    @Test func aDeletionAndAChangeWhoseRepliesAreLostAreSaved() throws {
        let context = ModelContext(try container(throughProxy))
        let kept = Poster(label: "keep")
        context.insert(kept)
        for index in 0..<10 { context.insert(Poster(label: "drop \(index)")) }
        try context.save()

        try context.delete(model: Poster.self, where: #Predicate { $0.label.starts(with: "drop") })
        proxy.cut(.afterCommit)
        try context.save()
        #expect(proxy.cuts == 1)
        #expect(try stored().labels == ["keep": 1])
        #expect(try context.fetch(FetchDescriptor<Poster>()).map(\.label) == ["keep"])

        kept.label = "kept"
        proxy.cut(.afterCommit)
        try context.save()
        #expect(proxy.cuts == 2)
        #expect(!context.hasChanges)
        #expect(try stored().labels == ["kept": 1])
        #expect(try stored().transactions == 3)
    }

    /// Random saves (new models, changes, deletions one by one and by predicate) with the
    /// connection lost at a random moment of about half of them. Each save either reports success
    /// or throws with the context's changes kept, and is then saved again; after every round the
    /// server holds exactly what the successful saves wrote, each once, with one history
    /// transaction per successful save, and the context's fetches agree.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func randomSavesWithLostConnectionsLoseAndRepeatNothing(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let context = ModelContext(try container(throughProxy))
        let cuts: [CuttingProxy.Cut] = [.afterCommit, .beforeCommit, .insideTransaction]
        var expected: [String: Int] = [:]
        var saved: [Poster] = []
        var transactions = 0
        var failedSaves = 0
        for round in 0..<24 {
            // This round's changes, and what the store should hold once they are saved.
            var next = expected
            var kept: [Poster] = []
            // Now and then, a deletion by predicate of last round's models with a 1 in their label.
            let previous = "r\(round - 1)-"
            let byPredicate = round > 0 && random.next() % 4 == 0
            if byPredicate {
                try context.delete(model: Poster.self, where: #Predicate { $0.label.starts(with: previous) && $0.label.contains("1") })
            }
            for poster in saved {
                if byPredicate, poster.label.hasPrefix(previous), poster.label.contains("1") {
                    next[poster.label] = nil
                    continue
                }
                switch random.next() % 6 {
                case 0:
                    context.delete(poster)
                    next[poster.label] = nil
                case 1:
                    next[poster.label] = nil
                    poster.label += "'"
                    next[poster.label] = 1
                    kept.append(poster)
                default:
                    kept.append(poster)
                }
            }
            for index in 0..<Int(random.next() % 4) {
                let poster = Poster(label: "r\(round)-\(index)")
                context.insert(poster)
                next[poster.label] = 1
                kept.append(poster)
            }
            if random.next() % 2 == 0 { proxy.cut(cuts[Int(random.next() % UInt64(cuts.count))]) }

            var attempts = 0
            while true {
                attempts += 1
                do {
                    try context.save()
                    break
                } catch let error as SwiftDataError where error == .storeUnavailable && attempts < 4 {
                    failedSaves += 1
                    #expect(try stored().labels == expected, "round \(round), seed \(seed): a failed save wrote nothing")
                }
            }
            proxy.disarm()
            let (labels, count) = try stored()
            #expect(labels == next, "round \(round), seed \(seed)")
            if next != expected {
                #expect(count == transactions + 1, "round \(round), seed \(seed): one history transaction per save")
            } else {
                #expect(count <= transactions + 1, "round \(round), seed \(seed)")
            }
            #expect(!context.hasChanges)
            #expect(Dictionary(try context.fetch(FetchDescriptor<Poster>()).map { ($0.label, 1) }, uniquingKeysWith: +) == next)
            expected = next
            saved = kept
            transactions = count
        }
        // The faults happened: connections were lost, some saves failed and were saved again.
        #expect(proxy.cuts >= 4 && failedSaves >= 2, "seed \(seed): \(proxy.cuts) cuts, \(failedSaves) failed saves")
    }

    /// A fetch whose answer is lost changed nothing, so it runs again on a new connection and
    /// reads; only when no new connection can be made does it throw, and the next fetch once one
    /// can reads.
    @Test func aFetchWhoseAnswerIsLostRunsAgainAndThrowsOnlyWhenItCannot() throws {
        let context = ModelContext(try container(throughProxy))
        context.insert(Poster(label: "one"))
        try context.save()
        let reader = ModelContext(try container(throughProxy))
        proxy.cut(.afterAnswer("SELECT"))
        #expect(try reader.fetch(FetchDescriptor<Poster>()).map(\.label) == ["one"])
        #expect(proxy.cuts == 1)
        proxy.cut(.afterAnswer("SELECT"), thenRefuse: true)
        #expect(throws: SwiftDataError.storeUnavailable) { try reader.fetch(FetchDescriptor<Poster>()) }
        #expect(proxy.cuts == 2)
        proxy.refuseConnections(false)
        #expect(try reader.fetch(FetchDescriptor<Poster>()).map(\.label) == ["one"])
    }
}
