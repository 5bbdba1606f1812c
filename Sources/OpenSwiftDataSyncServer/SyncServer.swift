import Foundation
import Hummingbird
import Logging
import OpenSwiftData
import OpenSwiftDataSync
import PostgresNIO
import ServiceLifecycle

/// An OpenSwiftData sync server: the routes ``SyncEngine`` talks to, over a PostgreSQL database
/// that holds every user's synchronized rows.
///
/// Run it on its own with ``run(host:port:onListening:)``, or add its routes to your Hummingbird
/// application with your own authentication, and run ``postgresClient`` among its services:
///
/// ```swift
/// let sync = try SyncServer(postgresURL: url, schema: Schema([Trip.self, Stop.self]),
///                           authenticator: MyJWTAuthenticator())
/// let router = Router()
/// sync.addRoutes(to: router)
/// let app = Application(router: router, services: [sync.postgresClient])
/// try await app.runService()
/// ```
///
/// Each user reaches only the rows their clients created and those other users share with them
/// (``SyncEngine/share(_:with:permission:)``). Each push is applied in one PostgreSQL
/// transaction, once: a batch sent again after a lost acknowledgment is recognized by its client
/// and sequence number.
public struct SyncServer: Sendable {
    /// The PostgreSQL connection pool; run it (`await postgresClient.run()`, or as one of a
    /// Hummingbird application's services) while the server serves.
    public let postgresClient: PostgresClient
    /// The most changes one push request may carry. Clients learn it from the hello's answer and
    /// send a larger batch in parts, which the server applies together.
    public var maximumBatchSize = 10_000
    /// The largest request body, in bytes. Clients learn it from the hello's answer and keep each
    /// part of a batch to a quarter of it; a batch in parts may hold sixteen times as much.
    public var maximumRequestSize = 64 << 20
    /// The longest a pull may wait for changes, in seconds.
    public var maximumWait = 60
    /// How long the records of deleted models (and the change log) are kept; `nil`, the default,
    /// keeps them for good. ``run(host:port:onListening:)`` trims what is older when it starts and
    /// then every tenth of this age (at least every second, at most every hour); an application
    /// that adds the routes to its own router calls ``trimHistory(olderThan:)`` itself. A client
    /// that was away longer downloads its user's rows again, keeping its own unsent changes.
    public var retention: Duration?

    private let database: SyncDatabase
    private let schema: SyncSchema
    private let authenticator: any SyncAuthenticator
    private let announcer = ChangeAnnouncer()
    /// The reads of waiting pulls, batched.
    private let scans: BatchedScans
    private let logger: Logger

    /// A server for the models of `schema`, keeping its rows in the PostgreSQL database at
    /// `postgresURL`, in the PostgreSQL schema `<name>_sync`.
    ///
    /// - Throws: ``SyncServerError`` for a URL that is not a `postgres://` URL.
    ///
    /// A `resolver` decides the properties two devices changed (``SyncConflictResolver``); without
    /// one, the later clock wins. `rules` decide which changes a user may write beyond the models
    /// they own (``SyncRules``); without them, a user writes every model they own. With
    /// `recordsChangeLog`, every pushed value, winning or not, is kept with its clock in the table
    /// `change_log`, for audits.
    public init(
        postgresURL: String, name: String = "default", schema: Schema, authenticator: some SyncAuthenticator,
        resolver: (any SyncConflictResolver)? = nil, rules: (any SyncRules)? = nil, recordsChangeLog: Bool = false,
        logger: Logger = Logger(label: "OpenSwiftDataSyncServer")
    ) throws {
        try self.init(
            postgresURL: postgresURL, name: name, syncSchema: SyncSchema(StoredSchema(schema)), authenticator: authenticator,
            resolver: resolver, rules: rules, recordsChangeLog: recordsChangeLog, logger: logger)
    }

    /// A server for models described without their classes (what `osd schema` prints).
    /// `rowsBeforeAnalysis` is how many rows the server writes before it first brings PostgreSQL's
    /// statistics of its rows table up to date (``RowStatistics``); `pageBytes` about the most
    /// bytes of values one page of a pull carries (``SyncDatabase/pageBytes``).
    package init(
        postgresURL: String, name: String, syncSchema: SyncSchema, authenticator: some SyncAuthenticator,
        resolver: (any SyncConflictResolver)? = nil, rules: (any SyncRules)? = nil, recordsChangeLog: Bool = false, logger: Logger,
        rowsBeforeAnalysis: Int = RowStatistics.defaultMinimumGrowth, pageBytes: Int = SyncDatabase.defaultPageBytes
    ) throws {
        self.postgresClient = PostgresClient(configuration: try .syncServer(url: postgresURL), backgroundLogger: logger)
        var database = SyncDatabase(
            client: postgresClient, namespace: "\(name)_sync", schema: syncSchema, recordsChangeLog: recordsChangeLog, resolver: resolver,
            rules: rules, logger: logger, statistics: RowStatistics(minimumGrowth: rowsBeforeAnalysis),
            shareShape: ShareTreeShape(syncSchema))
        database.pageBytes = max(pageBytes, 1)
        self.database = database
        self.scans = BatchedScans { [database] scans in try await database.scan(scans) }
        self.schema = syncSchema
        self.authenticator = authenticator
        self.logger = logger
    }

    /// Creates the server's tables in PostgreSQL when they are missing, while ``postgresClient``
    /// runs. ``run(host:port:onListening:)`` calls it; an application that adds the routes to its
    /// own router calls it once its services run, before it serves sync requests.
    public func prepare() async throws {
        try await database.prepare()
    }

    /// Serves on `host` and `port` until the task is cancelled or the process gets `SIGTERM` or
    /// `SIGINT`, calling `onListening` with the port once the server accepts connections (after its
    /// tables are ready). Stopping, it accepts no more connections, ends its waiting pulls and
    /// answers the requests it accepted (at most 10 seconds), then returns.
    public func run(host: String = "127.0.0.1", port: Int, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await run(host: host, port: port, configuringRouter: { _ in }, onListening: onListening)
    }

    /// Serves as ``run(host:port:onListening:)`` does, with `configuringRouter` given the router
    /// before the protocol's routes are added (a middleware that runs before every request).
    package func run(
        host: String = "127.0.0.1", port: Int, configuringRouter: (Router<BasicRequestContext>) -> Void,
        onListening: @escaping @Sendable (Int) async -> Void
    ) async throws {
        let router = Router()
        configuringRouter(router)
        addRoutes(to: router)
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "OpenSwiftDataSync"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
        // The PostgreSQL client runs in a task of its own, which the caller's cancellation does
        // not reach: it stops once the HTTP server has stopped, so that the requests a graceful
        // stop still answers can read and write (stopped with the server, it failed them with 503).
        // The tables are made once that task calls `run()`, which marks the client running at
        // once: PostgresNIO warns of a lease taken before that.
        let (running, signalRunning) = AsyncStream<Void>.makeStream()
        let client = Task {
            signalRunning.finish()
            await postgresClient.run()
        }
        do {
            for await _ in running {}
            try await prepareWhenReachable()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Whether the server stopped or failed, the client follows it: what is left
                    // (the relay, a trim) ends when its connection closes, if not before.
                    defer { client.cancel() }
                    try await serveUntilCancelled(app)
                }
                group.addTask { await relayChanges() }
                if let retention {
                    group.addTask { try await trimContinuously(keeping: retention) }
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            client.cancel()
            await client.value
            throw error
        }
        client.cancel()
        await client.value
    }

    /// Runs the HTTP server until the task is cancelled or the process gets `SIGTERM` or `SIGINT`,
    /// then stops it gracefully: it accepts no more connections, ends its waiting pulls, and
    /// answers what it accepted. (Cancelling a NIO server at once can stop the process, when a
    /// connection was accepted and not yet handed to its handler.)
    private func serveUntilCancelled(_ app: some ApplicationProtocol) async throws {
        await announcer.open()
        // The group stops its services last first: the waits end, then the server stops.
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: app), .init(service: WaitingPullsCloser(announcer: announcer), successTerminationBehavior: .ignore)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = Self.gracefulStopLimit
        let services = ServiceGroup(configuration: configuration)
        // Not a child task: the caller's cancellation reaches the server as a graceful shutdown.
        let serving = Task { try await services.run() }
        try await withTaskCancellationHandler {
            try await serving.value
        } onCancel: {
            Task {
                await services.triggerGracefulShutdown()
                // The group escalates a graceful shutdown to cancellation after
                // `gracefulStopLimit`; should the shutdown not have begun or ended by a while after
                // that, the group's own task is cancelled, which stops it too.
                do {
                    try await Task.sleep(for: Self.cancellationBackstop)
                } catch {
                    return
                }
                serving.cancel()
            }
        }
    }

    /// How long a graceful stop may take before the service group cancels what is left of it.
    static let gracefulStopLimit: Duration = .seconds(10)

    /// How long after its task is cancelled a server that has not stopped has its service group
    /// cancelled: twice ``gracefulStopLimit``, so that a graceful stop, or the group's own
    /// escalation, always comes first.
    static let cancellationBackstop: Duration = gracefulStopLimit * 2

    /// Wakes this process's waiting pulls when a push commits in any server process on the same
    /// database and namespace (PostgreSQL `LISTEN`/`NOTIFY`), until the task is cancelled, while
    /// ``postgresClient`` runs. ``run(host:port:onListening:)`` does it; an application that adds
    /// the routes to its own router and runs several processes runs it beside them. Without it,
    /// a device connected to another process learns of a change when its pull's wait ends.
    public func relayChanges() async {
        await ChangeRelay(client: postgresClient, namespace: database.namespace, announcer: announcer, logger: logger).listen()
    }

    /// How many pulls wait for changes in this process.
    package func waitingPullCount() async -> Int {
        await announcer.waitingCount
    }

    /// The number of pushes of a user's rows this process has announced to its waiting pulls,
    /// its own and those relayed from other processes.
    package func announcements(of user: String) async -> UInt64 {
        await announcer.generation(of: user)
    }

    /// Removes the records of models deleted more than `age` ago (and the change log entries and
    /// the replaced values resolvers see as bases, as old), in one transaction, while ``postgresClient`` runs. Pulls after that point are
    /// unchanged; a client whose last pull was before a removed deletion downloads its user's rows
    /// again on its next pull (``SyncEngine`` does so by itself, keeping its unsent changes), so
    /// that no deletion is missed.
    @discardableResult
    public func trimHistory(olderThan age: Duration) async throws -> SyncTrimResult {
        try await database.trim(olderThan: age)
    }

    /// Removes the records of models deleted more than `age` ago, as ``trimHistory(olderThan:)``
    /// does, keeping the change log whole when `keepingChangeLog`: a checker that compares the
    /// stores with every value ever pushed reads it at the end.
    @discardableResult
    package func trimHistory(olderThan age: Duration, keepingChangeLog: Bool) async throws -> SyncTrimResult {
        try await database.trim(olderThan: age, keepingChangeLog: keepingChangeLog)
    }

    /// Trims what ``retention`` does not keep, now and then every tenth of it, until cancelled.
    private func trimContinuously(keeping age: Duration) async throws {
        let interval = min(max(age / 10, .seconds(1)), .seconds(3600))
        while !Task.isCancelled {
            do {
                try await trimHistory(olderThan: age)
            } catch {
                logger.error("Trimming the sync history failed (the next attempt is in \(interval)): \(String(reflecting: error))")
            }
            try await Task.sleep(for: interval)
        }
    }

    /// Waits for the connection pool to reach PostgreSQL, then makes the tables.
    private func prepareWhenReachable() async throws {
        var attempt = 0
        while true {
            do {
                return try await prepare()
            } catch {
                attempt += 1
                if attempt >= 50 { throw SyncServerError("PostgreSQL cannot be reached to make the sync server's tables: \(String(reflecting: error))") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Adds the protocol's routes (`POST /v1/hello`, `POST /v1/push`, `GET /v1/changes`, and
    /// `POST` and `GET /v1/shares`) to a router.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(SyncPath.hello)) { request, _ in
            await respond {
                let user = try await authenticate(request)
                let hello = try await decode(HelloRequest.self, from: request)
                let problems = schema.problems(serving: hello.schema)
                guard problems.isEmpty else {
                    throw SyncProblem(code: "schema", message: "The server's schema (version \(schema.version)) cannot serve the client's (version \(hello.schema.version)): \(problems.joined(separator: "; "))")
                }
                try await database.register(client: hello.client, user: user)
                return HelloResponse(
                    user: user, schemaVersion: schema.version, pushLimits: PushLimits(changes: maximumBatchSize, bytes: maximumRequestSize))
            }
        }
        router.post(RouterPath(SyncPath.push)) { request, _ in
            await respondMessage {
                let user = try await authenticate(request)
                let part = try await read(PushRequest.self, from: request)
                try SyncValidation(schema: schema, limit: maximumBatchSize).check(part)
                if part.isEarlierPart {
                    try await database.keep(part: part, user: user)
                    return PushResponse(sequence: part.sequence, corrections: [], conflicts: [], refusals: [])
                }
                let push = try await database.wholeBatch(endedBy: part, user: user, maximumBytes: 16 * maximumRequestSize)
                // Each part was checked as it came; across parts, no model may come twice.
                if part.parts != nil { try SyncValidation.checkEachModelOnce(push.changes) }
                let (response, readers) = try await database.push(push, user: user)
                // The user's pulls wait for the corrections too, written or not.
                await announcer.announce(to: user)
                for reader in readers where reader != user { await announcer.announce(to: reader) }
                return response
            }
        }
        router.post(RouterPath(SyncPath.shares)) { request, _ in
            await respond {
                let user = try await authenticate(request)
                let share = try await decode(ShareRequest.self, from: request)
                let readers = if let permission = share.permission {
                    try await database.share(share.id, with: share.participant, permission: permission, by: user)
                } else {
                    try await database.stopSharing(share.id, with: share.participant, by: user)
                }
                for reader in readers { await announcer.announce(to: reader) }
                return SharesResponse(shares: try await database.shares(of: user, id: share.id))
            }
        }
        router.get(RouterPath(SyncPath.shares)) { request, _ in
            await respond {
                let user = try await authenticate(request)
                let id = request.uri.queryParameters["id"].map(String.init)
                return SharesResponse(shares: try await database.shares(of: user, id: id))
            }
        }
        router.get(RouterPath(SyncPath.changes)) { request, _ in
            await respondMessage {
                let user = try await authenticate(request)
                let parameters = request.uri.queryParameters
                let after = Int64(parameters["after"].map(String.init) ?? "0") ?? -1
                let limit = Int(parameters["limit"].map(String.init) ?? "1000") ?? 0
                let wait = min(Int(parameters["wait"].map(String.init) ?? "0") ?? 0, maximumWait)
                guard after >= 0, (1...50_000).contains(limit) else {
                    throw SyncProblem(code: "badRequest", message: "A pull names a cursor (after ≥ 0) and a page size (limit from 1 to 50000)")
                }
                let client = parameters["client"].map(String.init) ?? ""
                var since = await announcer.generation(of: user)
                // A wait for changes (a device's notification channel, opened again after each
                // answer) is read with the waits asking at the same time (``BatchedScans``); a
                // pull that must be current reads on its own.
                var page = if wait > 0 {
                    try await database.page(of: try await scans.rows(of: user, after: after, limit: limit), for: client)
                } else {
                    try await database.changes(of: user, client: client, after: after, limit: limit)
                }
                let deadline = ContinuousClock.now + .seconds(wait)
                // Waits for a change of another client's (this client's own are skipped).
                while page.rows.isEmpty && page.upToDate && ContinuousClock.now < deadline && !Task.isCancelled {
                    let seconds = Double((deadline - ContinuousClock.now).components.seconds) + 0.001
                    // The server is stopping: the wait answers what it read, and its device asks
                    // again (of this server once it runs again, or of another).
                    guard await announcer.wait(for: user, seconds: seconds, since: since) else { break }
                    since = await announcer.generation(of: user)
                    // The pulls this change woke read together (the user's other devices, and the
                    // other users the change is shared with).
                    page = try await database.page(of: try await scans.rows(of: user, after: page.cursor, limit: limit), for: client)
                }
                return page
            }
        }
    }

    // MARK: Support

    private func authenticate(_ request: Request) async throws -> String {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw SyncProblem(code: "unauthorized", message: "The request carries no bearer token")
        }
        guard let user = try await authenticator.user(forToken: String(header.dropFirst("Bearer ".count))), !user.isEmpty else {
            throw SyncProblem(code: "unauthorized", message: "The token is not valid: it names no user (wrong, expired or revoked)")
        }
        return user
    }

    private func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let body = try await collect(request)
        do {
            return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
        } catch let error as DecodingError {
            throw SyncProblem(code: "badRequest", message: "The request body is not a valid \(T.self): \(Self.describe(error))")
        }
    }

    /// Reads a message that reads its JSON itself (the pushes, which carry thousands of rows).
    private func read<T: SyncJSONMessage>(_ type: T.Type, from request: Request) async throws -> T {
        let body = try await collect(request)
        do {
            return try T(jsonData: body.readableBytesView)
        } catch {
            throw SyncProblem(code: "badRequest", message: "The request body is not a valid \(T.self): \(error)")
        }
    }

    private func collect(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: maximumRequestSize)
        } catch {
            throw SyncProblem(code: "badRequest", message: "The request body is larger than the server takes (\(maximumRequestSize) bytes)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context)) is not a \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context): return "\(path(context)) lacks a \(type)"
        case .keyNotFound(let key, let context): return "\(path(context)) lacks \(key.stringValue)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// Runs a route's work and answers with its JSON, or with the problem that stopped it.
    private func respondMessage(_ body: () async throws -> any SyncJSONWritable) async -> Response {
        await respond { () async throws -> Data in try await body().jsonData() }
    }

    /// Runs a route's work and answers with its JSON, or with the problem that stopped it.
    private func respond(_ body: () async throws -> some Encodable) async -> Response {
        await respond { () async throws -> Data in try JSONEncoder().encode(try await body()) }
    }

    private func respond(_ body: () async throws -> Data) async -> Response {
        do {
            return Self.json(try await body(), status: .ok)
        } catch {
            guard let problem = Self.problem(in: error) else {
                logger.error("A sync request failed: \(String(reflecting: error))")
                return Self.json(SyncProblem(code: "unavailable", message: "The server could not complete the request: \(error)"), status: .serviceUnavailable)
            }
            let status: HTTPResponse.Status = switch problem.code {
            case "unauthorized": .unauthorized
            case "schema": .conflict
            case "badRequest": .badRequest
            default: .internalServerError
            }
            return Self.json(problem, status: status)
        }
    }

    /// The problem a request's work threw, also from inside a PostgreSQL transaction.
    private static func problem(in error: any Error) -> SyncProblem? {
        if let problem = error as? SyncProblem { return problem }
        if let transaction = error as? PostgresTransactionError, let inner = transaction.closureError { return problem(in: inner) }
        return nil
    }

    private static func json(_ problem: SyncProblem, status: HTTPResponse.Status) -> Response {
        var writer = SyncJSONWriter()
        problem.write(json: &writer)
        return json(writer.data, status: status)
    }

    private static func json(_ data: Data, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
