import Foundation
import OpenSwiftData
import PostgresNIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to the server, used synchronously: each call blocks the calling thread until
/// the server answers, while SwiftNIO's event loops do the work. The store's seam is synchronous,
/// like SQLite's C API; no call is ever made on an event loop.
///
/// A lost connection (the server restarted, the network dropped) fails the call in flight with
/// ``SwiftDataError/storeUnavailable``; the next call connects again.
final class PostgresSession: @unchecked Sendable {
    // @unchecked Sendable: `connection` is replaced only inside `lock`; PostgresConnection itself
    // is Sendable and queues the queries it is given. The transaction's state
    // (`transactionConnection`, `transactionDepth`, `queued`, `unanswered`) is used by one caller at a
    // time: the store serializes its use of the session (`PostgresBackend.withSession`).

    let location: PostgresLocation
    private let lock = NSLock()
    private var connection: PostgresConnection?
    /// Why the session no longer connects, once it was shut down (``shutDown(_:)``).
    private var shutDownReason: SwiftDataError?
    /// The server process serving `connection`.
    private var connectionProcess: PostgresServerProcess?
    /// Called on an event loop with each notification from another connection on `channel`.
    private let listener: (channel: String, handler: @Sendable () -> Void)?

    static let logger: Logger = {
        var logger = Logger(label: "OpenSwiftData.Postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// Where the statements' durations are reported, if anywhere.
    let observer: StoreObserver?

    /// How long connecting waits for a server that is away (``PostgresFailure/meansServerAway(_:)``):
    /// the location's ``PostgresLocation/reconnectionTimeout`` once the session has connected, and
    /// for its first connection only if it was made to wait then too.
    private var serverWait: TimeInterval
    /// When connecting stops waiting for a server that is away, whatever ``serverWait`` allows:
    /// set while the outcome of a commit in doubt is learned (``connecting(by:_:)``).
    private var connectionDeadline: Date?

    /// Connects to the server; `observer` hears how long each round trip of statements takes.
    ///
    /// The first connection fails at once when the server is away, unless `waitsForServer`: a
    /// store that cannot reach its server as it opens says so rather than hang. Later connections,
    /// which replace a lost one, wait for the server within the location's reconnection timeout.
    init(
        _ location: PostgresLocation, observer: StoreObserver? = nil, listeningOn channel: String? = nil,
        waitsForServer: Bool = false, handler: @escaping @Sendable () -> Void = {}
    ) throws {
        self.location = location
        self.observer = observer
        self.listener = channel.map { ($0, handler) }
        self.serverWait = waitsForServer ? location.reconnectionTimeout : 0
        _ = try currentConnection()
        serverWait = location.reconnectionTimeout
    }

    deinit {
        if let connection { Self.discard(connection) }
    }

    /// Closes a connection without waiting, keeping it alive until it is closed (PostgresNIO
    /// requires a connection to be closed before it goes away).
    private static func discard(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// The open connection, connecting first when there is none or it was lost.
    func currentConnection() throws -> PostgresConnection {
        try refuseEventLoopThread()
        lock.lock()
        defer { lock.unlock() }
        if let connection, !connection.isClosed { return connection }
        if let shutDownReason { throw shutDownReason }
        if let connection { Self.discard(connection) }
        connection = nil
        connectionProcess = nil
        let deadline = min(Date().addingTimeInterval(serverWait), connectionDeadline ?? .distantFuture)
        var pause: TimeInterval = 0.02
        while true {
            do {
                let (fresh, process) = try connectAndListen()
                connection = fresh
                connectionProcess = process
                return fresh
            } catch where PostgresFailure.meansServerAway(error) && Date().addingTimeInterval(pause) < deadline {
                // The server is restarting or failing over: try again until it takes connections.
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.5)
            } catch {
                throw PostgresFailure.swiftDataError(error, location: location, statement: "Connecting")
            }
        }
    }

    /// Runs `body` with every connection it makes given up by `deadline`, even when the
    /// reconnection timeout would wait longer for a server that is away.
    func connecting<Result>(by deadline: Date, _ body: () throws -> Result) rethrows -> Result {
        lock.withLock { connectionDeadline = deadline }
        defer { lock.withLock { connectionDeadline = nil } }
        return try body()
    }

    /// Opens a connection, learns its server process and listens on it. Throws the error as
    /// PostgresNIO or SwiftNIO gave it, so that the caller can tell a server that is away.
    private func connectAndListen() throws -> (PostgresConnection, PostgresServerProcess?) {
        let fresh = try Self.connect(location)
        do {
            let process = try Self.serverProcess(of: fresh)
            try listen(on: fresh, served: process)
            return (fresh, process)
        } catch {
            Self.discard(fresh)
            throw error
        }
    }

    /// The server process serving the current connection, if there is one.
    var currentServerProcess: PostgresServerProcess? {
        lock.lock()
        defer { lock.unlock() }
        return connectionProcess
    }

    /// Starts listening for other connections' notifications on a new connection. Saves announced
    /// while no connection listened are unknown: the handler runs once, so that the store looks.
    private func listen(on fresh: PostgresConnection, served process: PostgresServerProcess?) throws {
        if let listener {
            // The connection's own notifications are not news.
            let pid = process?.pid ?? 0
            let handler = listener.handler
            fresh.addListener(channel: listener.channel) { _, notification in
                if notification.backendPID != pid { handler() }
            }
            _ = try Self.wait(fresh.query(PostgresQuery(unsafeSQL: "LISTEN \(PostgresSQL.quote(listener.channel))"), logger: Self.logger), location, "LISTEN")
            handler()
        }
    }

    /// Opens a connection and logs in. Throws PostgresNIO's or SwiftNIO's error.
    private static func connect(_ location: PostgresLocation) throws -> PostgresConnection {
        let tls: PostgresConnection.Configuration.TLS
        var settings = TLSConfiguration.makeClientConfiguration()
        switch location.transport {
        case .plain:
            tls = .disable
        case .encrypted:
            settings.certificateVerification = .none
            tls = .require(try tlsContext(settings, location))
        case .verified(let checksHostName, let rootCertificates):
            settings.certificateVerification = checksHostName ? .fullVerification : .noHostnameVerification
            if let rootCertificates { settings.trustRoots = .file(rootCertificates) }
            tls = .require(try tlsContext(settings, location))
        }
        var configuration: PostgresConnection.Configuration
        var channel: (any Channel)?
        switch location.endpoint {
        case .tcp(let host, let port):
            // The store opens the TCP connection itself, to set its keepalive probes, which
            // PostgresNIO leaves to the system; the server's name then checks its certificate
            // and goes out with TLS, as PostgresNIO sends it (no name for an IP address).
            let opened = try openChannel(host: host, port: port, location)
            channel = opened
            configuration = PostgresConnection.Configuration(
                establishedChannel: opened, tls: tls, username: location.username, password: location.password, database: location.database)
            if !isIPAddress(host) { configuration.options.tlsServerName = host }
        case .socket(let path):
            configuration = PostgresConnection.Configuration(
                unixSocketPath: path, username: location.username, password: location.password, database: location.database)
        }
        configuration.options.connectTimeout = .seconds(location.connectTimeout)
        // Names the store's connections in pg_stat_activity.
        configuration.options.additionalStartupParameters = [("application_name", location.applicationName)]
        if let options = location.options { configuration.options.additionalStartupParameters.append(("options", options)) }
        let future = PostgresConnection.connect(
            on: channel?.eventLoop ?? PostgresEventLoops.group.any(), configuration: configuration, id: 1, logger: logger)
        do {
            return try future.wait()
        } catch {
            channel?.close(promise: nil)
            throw error
        }
    }

    /// Connects to the server over TCP, with the location's keepalive probes
    /// (``PostgresKeepalive``) and within its connect timeout. Throws SwiftNIO's error.
    private static func openChannel(host: String, port: Int, _ location: PostgresLocation) throws -> any Channel {
        var bootstrap = ClientBootstrap(group: PostgresEventLoops.group.any())
            .connectTimeout(.seconds(location.connectTimeout))
        if let keepalive = location.keepalive {
            bootstrap = bootstrap.channelOption(.socketOption(.so_keepalive), value: 1)
            #if canImport(Darwin)
            let idleOption = TCP_KEEPALIVE
            #else
            let idleOption = TCP_KEEPIDLE
            #endif
            for (name, value) in [(idleOption, keepalive.idle), (TCP_KEEPINTVL, keepalive.interval), (TCP_KEEPCNT, keepalive.count)] {
                guard let value else { continue }
                bootstrap = bootstrap.channelOption(
                    ChannelOptions.Types.SocketOption(level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(name)), value: SocketOptionValue(value))
            }
        }
        return try bootstrap.connect(host: host, port: port).wait()
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    private static func isIPAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return host.withCString { inet_pton(AF_INET, $0, &address) == 1 || inet_pton(AF_INET6, $0, &address) == 1 }
    }

    private static func tlsContext(_ settings: TLSConfiguration, _ location: PostgresLocation) throws -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: settings)
        } catch {
            throw SwiftDataError(.storeUnavailable, reason: "Cannot set up TLS for \(location.displayName): \(error)")
        }
    }

    /// The server process that serves a new connection; `nil` if the server does not say.
    private static func serverProcess(of connection: PostgresConnection) throws -> PostgresServerProcess? {
        let sql = "SELECT pg_backend_pid(), backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        let rows = try wait(connection.query(PostgresQuery(unsafeSQL: sql), logger: logger), PostgresLocation?.none, "pg_backend_pid").rows
        guard let row = rows.first.map(PostgresRowReader.init), !row._isNull(0), !row._isNull(1) else { return nil }
        return PostgresServerProcess(pid: Int32(truncatingIfNeeded: row._int64(0)), start: row._string(1))
    }

    /// Waits for a future off the event loops, turning PostgreSQL's errors into ``SwiftDataError``s.
    private static func wait<T: Sendable>(_ future: EventLoopFuture<T>, _ location: PostgresLocation?, _ statement: String) throws -> T {
        do {
            return try future.wait()
        } catch {
            throw PostgresFailure.swiftDataError(error, location: location, statement: statement)
        }
    }

    /// The connection the open transaction runs on, or `nil` outside transactions. A transaction
    /// never moves to a new connection: if its connection is lost, its statements fail.
    var transactionConnection: PostgresConnection?
    /// The server process serving the open transaction's connection.
    var transactionProcess: PostgresServerProcess?
    /// How many transactions are open: the outermost one, and savepoints inside it.
    var transactionDepth = 0
    /// Whether any statement of the open transaction has gone to the server (its `BEGIN` first).
    var transactionWasSent = false
    /// The statements prepared on `preparedOn`, by their SQL.
    private var preparedStatements: [String: PreparedQuery] = [:]
    /// The connection `preparedStatements` belong to.
    private var preparedOn: PostgresConnection?
    /// Statements of the open transaction not sent yet, in order (see `PostgresSession+Pipeline`).
    var queued: [PostgresStatement] = []
    /// The parameters of the queued statements.
    var queuedBindings = 0
    /// Statements of the open transaction sent and not yet answered, in order.
    var unanswered: [(future: EventLoopFuture<[PostgresRow]>, sql: String)] = []

    /// Runs one statement and returns every row it produced.
    @discardableResult
    func query(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        try query(.parsed(sql, bindings))
    }

    /// Runs one statement and returns every row it produced.
    @discardableResult
    func query(_ statement: PostgresStatement) throws -> [PostgresRow] {
        let connection = try connectionForStatement()
        return try run([statement], on: connection)[0]
    }

    /// Runs statements that only read and returns the rows of each. Outside a transaction, a read
    /// whose connection turns out to be lost (the server restarted, or ended the connection while
    /// it was idle) runs once more on a new connection: it changed nothing, so running it again is
    /// safe, and a pool of idle connections does not fail one read per connection after a restart.
    func read(_ statements: [PostgresStatement]) throws -> [[PostgresRow]] {
        let connection = try connectionForStatement()
        if transactionConnection == nil { trimPreparedStatements() }
        do {
            return try run(statements, on: connection)
        } catch let error as SwiftDataError where error == .storeUnavailable && transactionConnection == nil {
            return try run(statements, on: currentConnection())
        }
    }

    /// The keys a `DELETE` or `UPDATE … RETURNING <key> AS k` deleted or changed, gathered
    /// server-side into one array, so that thousands of rows cross the wire as one value rather
    /// than a row each.
    func returnedKeys(_ statement: String, _ bindings: PostgresBindings) throws -> [Int64] {
        let rows = try query("WITH d AS (\(statement)) SELECT array_agg(k) FROM d", bindings)
        return rows.first.map { PostgresRowReader($0).int64Array(0) } ?? []
    }

    /// The connection the next statement runs on: the transaction's, or the current one.
    func connectionForStatement() throws -> PostgresConnection {
        guard let transactionConnection else { return try currentConnection() }
        try refuseEventLoopThread()
        guard !transactionConnection.isClosed else {
            throw SwiftDataError(.storeUnavailable, reason: "The connection to \(location.displayName) was lost during a transaction; the server discarded all of it.")
        }
        return transactionConnection
    }

    /// Throws when called on one of SwiftNIO's event loop threads: the session blocks its caller
    /// until the server answers, which would hold the loop and every connection it serves (and on
    /// one of the store's own loops, ``PostgresEventLoops``, the loop that reads the answer would
    /// wait for itself). Warns when called from async code on Swift's shared threads, which the
    /// wait would hold (see `BlockingCallSite`).
    private func refuseEventLoopThread() throws {
        guard MultiThreadedEventLoopGroup.currentEventLoop != nil else {
            if BlockingCallSite.isSharedTaskThread { BlockingCallSite.warn(store: location.displayName, observer: observer) }
            return
        }
        throw SwiftDataError(.storeFailure, reason: "\(location.displayName) was used from a SwiftNIO event loop thread. The PostgreSQL store blocks its caller until the server answers; call it from a task, an actor (a @ModelActor) or a thread of your own instead.")
    }

    /// Fetches with more parameters than this are parsed each time rather than prepared: their
    /// SQL varies with the values (a list of many), so that preparing them would fill the
    /// connection's statements with ones used once.
    static let preparedParameterLimit = 32
    /// The most statements kept prepared on a connection (``trimPreparedStatements()``).
    static let preparedStatementLimit = 256

    /// Deallocates every statement prepared on the connection once there are more than
    /// ``preparedStatementLimit`` (fetches of many shapes), so that neither the server's memory
    /// nor the session's grows without end; each is prepared again at its next use. Called
    /// between statements, outside transactions: nothing sent or about to be sent uses them.
    private func trimPreparedStatements() {
        guard preparedStatements.count > Self.preparedStatementLimit else { return }
        for prepared in preparedStatements.values {
            // The server's reply changes nothing the caller sees: a statement it no longer has
            // is gone either way, and a lost connection takes them all.
            _ = prepared.deallocate()
        }
        preparedStatements = [:]
    }

    /// The statement `sql` prepared on `connection`: prepared once per connection (waiting for
    /// the server), then only executed.
    func prepared(_ sql: String, on connection: PostgresConnection) throws -> PreparedQuery {
        if preparedOn !== connection {
            preparedStatements = [:]
            preparedOn = connection
        }
        if let prepared = preparedStatements[sql] { return prepared }
        let prepared: PreparedQuery
        do {
            prepared = try connection.prepare(query: sql).wait()
        } catch {
            throw failure(error, sql, on: connection)
        }
        preparedStatements[sql] = prepared
        return prepared
    }

    /// The error to throw for a statement's failure. A connection that is gone (reset, closed, or
    /// ended by the server: SQLSTATE 57P01) is dropped at once, so that the next call connects
    /// again rather than waiting for SwiftNIO to notice the close. A prepared statement whose
    /// table changed the type of a column it returns (``PostgresFailure/isStalePlan(_:)``) is
    /// forgotten, so that its next use prepares it again.
    func failure(_ error: any Error, _ sql: String, on connection: PostgresConnection) -> SwiftDataError {
        let failure = PostgresFailure.swiftDataError(error, location: location, statement: sql)
        if PostgresFailure.isStalePlan(failure), preparedOn === connection, let stale = preparedStatements.removeValue(forKey: sql) {
            // The server refuses the statement until it is prepared again.
            _ = stale.deallocate()
        }
        if failure == .storeUnavailable {
            lock.lock()
            if self.connection === connection {
                Self.discard(connection)
                self.connection = nil
            }
            lock.unlock()
        }
        return failure
    }

    /// Runs a statement that returns no rows.
    func execute(_ sql: String) throws {
        try query(sql)
    }

    /// Closes the connection.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        if let connection { Self.discard(connection) }
        connection = nil
    }

    /// Closes the connection for good: every later statement throws `reason` instead of
    /// connecting again.
    func shutDown(_ reason: SwiftDataError) {
        lock.lock()
        defer { lock.unlock() }
        shutDownReason = reason
        if let connection { Self.discard(connection) }
        connection = nil
    }
}
