import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
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
        let url = try #require(PostgresServer.url)
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        proxy = try CuttingProxy(toServerPort: components.port ?? 5432)
        direct = try PostgresServer.freshConfiguration("doubt")
        components.host = "127.0.0.1"
        components.port = proxy.port
        throughProxy = PostgresStoreConfiguration(name: direct.name, url: try #require(components.url))
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

    /// When the server cannot be asked (it stays out of reach longer than the store waits), the
    /// save's outcome is unknown and it says so; saving the same new models again first asks,
    /// and refuses to write them twice.
    @Test func aSaveWhoseOutcomeCannotBeLearnedIsNotWrittenTwice() throws {
        let context = ModelContext(try container(throughProxy))
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

    /// A fetch whose answer is lost throws; the next one connects again and reads.
    @Test func aFetchWhoseAnswerIsLostThrowsAndTheNextOneReads() throws {
        let context = ModelContext(try container(throughProxy))
        context.insert(Poster(label: "one"))
        try context.save()
        let reader = ModelContext(try container(throughProxy))
        proxy.cut(.afterAnswer("SELECT"))
        #expect(throws: SwiftDataError.storeUnavailable) { try reader.fetch(FetchDescriptor<Poster>()) }
        #expect(proxy.cuts == 1)
        #expect(try reader.fetch(FetchDescriptor<Poster>()).map(\.label) == ["one"])
    }
}
