import Foundation
import Hummingbird
import Logging
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import SyncChecking
import Testing

/// The PostgreSQL server the sync tests use, when `OSD_POSTGRES_URL` names one.
enum SyncPostgres {
    static let url: String? = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"]
    static var isAvailable: Bool { url != nil }
    static let skipMessage: Comment = "OSD_POSTGRES_URL is not set: run `Scripts/with-postgres.sh swift test`"

    /// A namespace no other test uses.
    static func freshName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
    }
}

/// A sync server running in the test process on a free port, over a namespace of its own.
final class RunningSyncServer: Sendable {
    let url: URL
    let name: String
    /// The server itself, for what a deployment does beside serving (trimming its history).
    let server: SyncServer
    private let task: Task<Void, any Error>

    /// The tokens every harness server accepts.
    static let tokens = ["token-a": "alice", "token-b": "bob", "token-c": "carol"]

    private init(url: URL, name: String, server: SyncServer, task: Task<Void, any Error>) {
        self.url = url
        self.name = name
        self.server = server
        self.task = task
    }

    /// Starts a server over a namespace of its own, or, given `sharing`, over that server's
    /// namespace: a second process of the same service. `rowsBeforeAnalysis` is the server's
    /// (``RowStatistics``); `configuringRouter` adds middleware before the protocol's routes.
    static func start(
        _ prefix: String = "sync", resolver: (any SyncConflictResolver)? = nil, rules: (any SyncRules)? = nil, sharing other: RunningSyncServer? = nil,
        rowsBeforeAnalysis: Int = RowStatistics.defaultMinimumGrowth, maximumRequestSize: Int? = nil, pageBytes: Int = SyncDatabase.defaultPageBytes,
        configuringRouter: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) async throws -> RunningSyncServer {
        let postgres = try #require(SyncPostgres.url)
        guard let started = StartedSyncServers.current else {
            throw SyncServerError("A sync server started outside StopsSyncServers would serve until the test process ends: add .stopsSyncServers to the test's suite")
        }
        let name = other?.name ?? SyncPostgres.freshName(prefix)
        var logger = Logger(label: "sync-test")
        logger.logLevel = .critical
        var configured = try SyncServer(
            postgresURL: postgres, name: name, syncSchema: SyncSchema(StoredSchema(Schema(syncModels))), authenticator: TokenFileAuthenticator(users: tokens),
            resolver: resolver, rules: rules, logger: logger, rowsBeforeAnalysis: rowsBeforeAnalysis, pageBytes: pageBytes)
        if let maximumRequestSize { configured.maximumRequestSize = maximumRequestSize }
        let server = configured
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            // A server that stops, or never starts, ends the stream: the test then learns why.
            defer { continuation.finish() }
            try await server.run(port: 0, configuringRouter: configuringRouter) { port in continuation.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            // The server stopped, or the test was cancelled (its time limit) while the server
            // started: the server's task is not the test's child, so it is stopped here, or it
            // would serve, and this wait last, until the process ends.
            task.cancel()
            try await task.value
            throw SyncServerError("The sync server stopped before it listened")
        }
        let running = RunningSyncServer(url: try #require(URL(string: "http://127.0.0.1:\(port)")), name: name, server: server, task: task)
        started.add(running)
        do {
            // The tables are made once PostgreSQL is reached: a hello before then would find none.
            try await server.prepare()
        } catch {
            await running.stop()
            throw error
        }
        return running
    }

    /// Stops the server and waits until it has; stopping it again does nothing more.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// A device: a store file in a temporary directory, its container, and an engine.
final class SyncDevice {
    let directory: URL
    let storeURL: URL
    private(set) var container: ModelContainer
    private(set) var engine: SyncEngine
    private let serverURL: URL
    private let token: String
    private let pullPageSize: Int

    /// A device of the user `token` names; its engine pulls pages of `pullPageSize` rows.
    init(server: RunningSyncServer, token: String = "token-a", directory: URL? = nil, pullPageSize: Int = 2000) throws {
        self.directory = directory ?? FileManager.default.temporaryDirectory.appending(path: "osd-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        storeURL = self.directory.appending(path: "device.store")
        serverURL = server.url
        self.token = token
        self.pullPageSize = pullPageSize
        container = try ModelContainer(for: Schema(syncModels), configurations: ModelConfiguration(url: storeURL))
        engine = SyncEngine(container: container, configuration: Self.configuration(server.url, token: token, pullPageSize: pullPageSize))
    }

    /// Closes the store and opens it again, with a new engine: what an app's restart does.
    func restart() throws {
        container = try ModelContainer(for: Schema(syncModels), configurations: ModelConfiguration(url: storeURL))
        engine = SyncEngine(container: container, configuration: Self.configuration(serverURL, token: token, pullPageSize: pullPageSize))
    }

    /// A device's engine configuration: requests wait up to five minutes, not the default one, as
    /// the server runs in the test process, beside every other test, and a loaded machine's
    /// two cores may take longer than a minute to answer.
    private static func configuration(_ server: URL, token: String, pullPageSize: Int) -> SyncConfiguration {
        SyncConfiguration(serverURL: server, token: token, pullPageSize: pullPageSize, requestTimeout: 300)
    }

    /// A fresh context of the device's container.
    func context() -> ModelContext { ModelContext(container) }

    func trips() throws -> [Trip] {
        try context().fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.code)]))
    }

    func trip(_ code: String, in context: ModelContext) throws -> Trip? {
        try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.code == code })).first
    }

    func count<T: PersistentModel>(_ type: T.Type) throws -> Int {
        try context().fetchCount(FetchDescriptor<T>())
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}

extension SyncDevice {
    /// Two devices of the first user on `server`, both holding the trip `T1` ("Lisbon", at
    /// `price`) that the first device made and both synchronized: where most two-device tests start.
    /// The second device pulls pages of `pullPageSize` rows.
    static func pairHoldingATrip(on server: RunningSyncServer, price: Double = 0, pullPageSize: Int = 2000) async throws -> (SyncDevice, SyncDevice) {
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server, pullPageSize: pullPageSize)
        let context = a.context()
        context.insert(Trip(code: "T1", name: "Lisbon", price: price))
        try context.save()
        try await a.engine.sync()
        try await b.engine.sync()
        return (a, b)
    }
}

/// Runs a program to its end: its exit status and what it printed on standard output. It waits on
/// a thread of its own: a wait on one of the few threads Swift's tasks share (two on a two-core
/// machine) would hold up the servers and engines the other tests run in this process, for as
/// long as the program runs (a convergence check: tens of seconds).
func runToEnd(_ executable: URL, _ arguments: [String]) async throws -> (status: Int32, output: Data) {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result {
                let run = try ProgramRun(executable, arguments)
                return (run.status, run.output)
            })
        }.start()
    }
}
