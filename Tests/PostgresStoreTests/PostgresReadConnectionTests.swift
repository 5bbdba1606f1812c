import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import PostgresNIO
import Testing

/// A server's requests read at the same time: a read that finds the container's connection busy
/// runs on a connection for reads, sees every save committed before it, and merges what other
/// processes saved as a read on the container's own connection does.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresReadConnectionTests {
    static let schema = Schema([Ticket.self, Desk.self, Poster.self])

    /// The configuration of a fresh namespace, with at most `readers` connections for reads.
    static func configuration(readers: Int) throws -> PostgresStoreConfiguration {
        var configuration = try PostgresServer.freshConfiguration("reads")
        configuration.maximumReadConnections = readers
        return configuration
    }

    /// The same namespace through connections named `other`, as another process would open it.
    static func otherProcess(_ configuration: PostgresStoreConfiguration) throws -> ModelContainer {
        var components = try #require(URLComponents(url: configuration.url, resolvingAgainstBaseURL: false))
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "application_name", value: "other")]
        var other = configuration
        other.url = try #require(components.url)
        return try ModelContainer(for: schema, configurations: [other])
    }

    /// The server connections the container of `configuration` has open.
    static func connections(of configuration: PostgresStoreConfiguration, waitingForALock: Bool = false) throws -> Int {
        let condition = waitingForALock ? " AND wait_event_type = 'Lock'" : ""
        let rows = try PostgresServer.sql("SELECT count(*)::text FROM pg_stat_activity WHERE application_name = 'OpenSwiftData \(configuration.name)'\(condition)")
        return Int(rows.first ?? "") ?? -1
    }

    /// Runs `body` while a save of `container` waits for a lock the test holds on the posters'
    /// table, so that the container's own connection is busy throughout; then lets the save go
    /// and returns whether it succeeded.
    static func whileASaveWaits(
        _ container: ModelContainer, _ configuration: PostgresStoreConfiguration, _ body: () throws -> Void
    ) throws -> Bool {
        let blocker = try PostgresServer.connect()
        defer { try? blocker.close().wait() }
        try PostgresServer.sql("BEGIN", on: blocker)
        try PostgresServer.sql("LOCK TABLE \(configuration.name).\"Poster\" IN EXCLUSIVE MODE", on: blocker)
        let save = Background {
            let context = ModelContext(container)
            context.insert(Poster(label: "waited"))
            try context.save()
        }
        var waiting = false
        for _ in 0..<2_000 where !waiting {
            waiting = try connections(of: configuration, waitingForALock: true) == 1
            if !waiting { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(waiting, "the save waits for the table's lock")
        defer { _ = try? PostgresServer.sql("COMMIT", on: blocker) }
        try body()
        try PostgresServer.sql("COMMIT", on: blocker)
        guard case .some(.success) = save.wait(seconds: 120) else {
            Issue.record("the save that waited did not succeed")
            return false
        }
        return true
    }

    @Test func aReadRunsWhileTheContainersConnectionWaitsForASave() throws {
        let configuration = try Self.configuration(readers: 2)
        let container = try ModelContainer(for: Self.schema, configurations: [configuration])
        let setup = ModelContext(container)
        for label in ["b", "a", "c"] { setup.insert(Poster(label: label)) }
        try setup.save()

        let saved = try Self.whileASaveWaits(container, configuration) {
            let read = Background { () -> [String] in
                let context = ModelContext(container)
                let labels = try context.fetch(FetchDescriptor<Poster>(sortBy: [SortDescriptor(\.label)])).map(\.label)
                let count = try context.fetchCount(FetchDescriptor<Poster>(predicate: #Predicate { $0.label != "b" }))
                return labels + ["\(count)"]
            }
            let outcome = read.wait(seconds: 60)
            #expect(outcome != nil, "the read did not wait for the save")
            if case .some(.success(let values)) = outcome {
                #expect(values == ["a", "b", "c", "2"], "the read sees the saved rows and not the save in flight")
            }
            let open = try Self.connections(of: configuration)
            #expect(open == 2, "one connection for the save, one for the read")
        }
        #expect(saved)
        let labels = try ModelContext(container).fetch(FetchDescriptor<Poster>(sortBy: [SortDescriptor(\.label)])).map(\.label)
        #expect(labels == ["a", "b", "c", "waited"])
        let reopened = try ModelContainer(for: Self.schema, configurations: [configuration])
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Poster>()) == 4)
    }

    /// The container's own connection hears other processes' saves by `NOTIFY`, which PostgreSQL
    /// holds back while that connection is inside a transaction (here, a save waiting for a lock).
    /// A read on another connection that sees such a save still merges it: the model it returns
    /// shows the saved values, not the ones loaded before, and so do the models loaded before. A
    /// fetch learns of the save from the history counter its rows carry (a page of sorted rows
    /// too, whose rows take the counter after the sort and limit); one that returns no rows reads
    /// the counter by itself.
    @Test(arguments: ["new", "nothing", "a page"])
    func aReadOnAReaderMergesWhatAnotherProcessSaved(fetchedTitle: String) throws {
        let configuration = try Self.configuration(readers: 1)
        let container = try ModelContainer(for: Self.schema, configurations: [configuration])
        let setup = ModelContext(container)
        setup.insert(Ticket(code: "t1", title: "old"))
        setup.insert(Ticket(code: "t2", title: "old"))
        try setup.save()
        let context = Unchecked(ModelContext(container))
        let loaded = try context.value.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)]))
        #expect(loaded.map(\.title) == ["old", "old"])
        let models = Unchecked(loaded)

        let saved = try Self.whileASaveWaits(container, configuration) {
            let other = ModelContext(try Self.otherProcess(configuration))
            let ticket = try #require(try other.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.code == "t1" })).first)
            ticket.title = "new"
            ticket.count = 7
            try other.save()

            let read = Background { () -> [String] in
                var descriptor = FetchDescriptor<Ticket>(predicate: #Predicate { $0.title == fetchedTitle })
                if fetchedTitle == "a page" {
                    descriptor = FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code, order: .reverse)])
                    descriptor.fetchOffset = 1
                    descriptor.fetchLimit = 1
                }
                let found = try context.value.fetch(descriptor)
                return found.map { "\($0.code) \($0.title) \($0.count)" } + models.value.map { "\($0.code) \($0.title)" }
            }
            let outcome = read.wait(seconds: 60)
            #expect(outcome != nil, "the read did not wait for the save")
            if case .some(.success(let values)) = outcome {
                let fetched = fetchedTitle == "nothing" ? [] : ["t1 new 7"]
                #expect(values == fetched + ["t1 new", "t2 old"], "the models show what the other process saved")
            }
        }
        #expect(saved)
    }

    /// A read on a reader whose connection is lost before its answer arrives (a restart, an idle
    /// connection a firewall forgot) runs again on a new connection instead of failing, as one on
    /// the container's own connection does
    /// (`PostgresCommitInDoubtTests.aFetchWhoseAnswerIsLostRunsAgainAndThrowsOnlyWhenItCannot`).
    @Test func aReaderCutOffBeforeItsAnswerRunsAgainOnANewConnection() throws {
        let url = try #require(PostgresServer.url)
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let proxy = try CuttingProxy(toServerPort: components.port ?? 5432)
        components.host = "127.0.0.1"
        components.port = proxy.port
        var configuration = try Self.configuration(readers: 1)
        configuration.url = try #require(components.url)
        let container = try ModelContainer(for: Self.schema, configurations: [configuration])
        let setup = ModelContext(container)
        for label in ["b", "a", "c"] { setup.insert(Poster(label: label)) }
        try setup.save()
        let labels = { @Sendable () throws -> [String] in
            try ModelContext(container).fetch(FetchDescriptor<Poster>(sortBy: [SortDescriptor(\.label)])).map(\.label)
        }

        let saved = try Self.whileASaveWaits(container, configuration) {
            for cut in [false, true] {
                if cut { proxy.cut(.afterAnswer("SELECT")) }
                let outcome = Background(labels).wait(seconds: 60)
                if case .some(.success(let values)) = outcome {
                    #expect(values == ["a", "b", "c"], "a reader, cut: \(cut)")
                } else {
                    Issue.record("a reader, cut: \(cut): \(String(describing: outcome))")
                }
            }
            #expect(proxy.cuts == 1)
        }
        #expect(saved)
        #expect(try labels() == ["a", "b", "c", "waited"])
    }

    /// Contexts on several threads fetch, count and save at once while another process saves:
    /// every save lands once, every read succeeds, and the container never opens more
    /// connections than it may.
    @Test(arguments: [0, 2])
    func concurrentContextsReadAndSaveWithinTheirConnections(readers: Int) throws {
        let configuration = try Self.configuration(readers: readers)
        do {
            let container = try ModelContainer(for: Self.schema, configurations: [configuration])
            let other = ModelContext(try Self.otherProcess(configuration))
            let workers = (0..<4).map { worker in
                Background { () -> Int in
                    let context = ModelContext(container)
                    var seen = 0
                    for round in 0..<25 {
                        context.insert(Ticket(code: "w\(worker)-\(round)", title: "worker \(worker)", count: round))
                        try context.save()
                        let mine = try context.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.title == "worker \(worker)" }))
                        guard mine.count == round + 1, mine.allSatisfy({ $0.title == "worker \(worker)" }) else {
                            throw SwiftDataError(.storeFailure, reason: "worker \(worker) read \(mine.count) of its \(round + 1) tickets")
                        }
                        seen = max(seen, try context.fetchCount(FetchDescriptor<Ticket>()))
                    }
                    return seen
                }
            }
            for round in 0..<25 {
                other.insert(Poster(label: "other \(round)"))
                try other.save()
            }
            for worker in workers {
                let outcome = worker.wait(seconds: 300)
                guard case .some(.success(let seen)) = outcome else {
                    Issue.record("a worker failed: \(String(describing: outcome))")
                    continue
                }
                #expect(seen >= 25)
            }
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Ticket>()) == 100)
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Poster>()) == 25)
            let open = try Self.connections(of: configuration)
            #expect(open >= 1 && open <= 1 + readers, "\(open) connections, at most \(1 + readers) allowed")
        }
        // The container is gone: so are its connections, readers included.
        var attempts = 0
        while try Self.connections(of: configuration) != 0, attempts < 500 {
            attempts += 1
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try Self.connections(of: configuration) == 0, "a released container closes its connections")
    }
}

/// A value handed to one thread at a time, the test waiting for each hand-over.
final class Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
