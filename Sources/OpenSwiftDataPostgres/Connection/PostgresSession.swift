import Foundation
import OpenSwiftData
import PostgresNIO

/// One connection to the server, used synchronously: each call blocks the calling thread until
/// the server answers, while SwiftNIO's event loops do the work. The store's seam is synchronous,
/// like SQLite's C API; no call is ever made on an event loop.
///
/// A lost connection (the server restarted, the network dropped) fails the call in flight with
/// ``SwiftDataError/storeUnavailable``; the next call connects again.
final class PostgresSession: @unchecked Sendable {
    // @unchecked Sendable: `connection` is replaced only inside `lock`; PostgresConnection itself
    // is Sendable and queues the queries it is given. The transaction's state
    // (`transactionConnection`, `transactionDepth`, `unanswered`) is used by one caller at a
    // time: the store serializes its use of the session (`PostgresBackend.withSession`).

    let location: PostgresLocation
    private let lock = NSLock()
    private var connection: PostgresConnection?
    /// Called on an event loop with each notification from another connection on `channel`.
    private let listener: (channel: String, handler: @Sendable () -> Void)?

    static let logger: Logger = {
        var logger = Logger(label: "OpenSwiftData.Postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// Connects to the server.
    init(_ location: PostgresLocation, listeningOn channel: String? = nil, handler: @escaping @Sendable () -> Void = {}) throws {
        self.location = location
        self.listener = channel.map { ($0, handler) }
        _ = try currentConnection()
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
        lock.lock()
        defer { lock.unlock() }
        if let connection, !connection.isClosed { return connection }
        if let connection { Self.discard(connection) }
        connection = nil
        let fresh = try Self.connect(location)
        do {
            try listen(on: fresh)
        } catch {
            Self.discard(fresh)
            throw error
        }
        connection = fresh
        return fresh
    }

    /// Starts listening for other connections' notifications on a new connection. Saves announced
    /// while no connection listened are unknown: the handler runs once, so that the store looks.
    private func listen(on fresh: PostgresConnection) throws {
        if let listener {
            // The server process that serves the connection: its own notifications are not news.
            let pid = try Self.backendProcess(of: fresh)
            let handler = listener.handler
            fresh.addListener(channel: listener.channel) { _, notification in
                if notification.backendPID != pid { handler() }
            }
            _ = try Self.wait(fresh.query(PostgresQuery(unsafeSQL: "LISTEN \(PostgresSQL.quote(listener.channel))"), logger: Self.logger), location, "LISTEN")
            handler()
        }
    }

    private static func connect(_ location: PostgresLocation) throws -> PostgresConnection {
        let tls: PostgresConnection.Configuration.TLS
        if location.usesTLS {
            do {
                tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            } catch {
                throw SwiftDataError(.storeUnavailable, reason: "Cannot set up TLS for \(location.displayName): \(error)")
            }
        } else {
            tls = .disable
        }
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username,
            password: location.password, database: location.database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        // Names the store's connections in pg_stat_activity.
        configuration.options.additionalStartupParameters = [("application_name", location.applicationName)]
        let future = PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: logger)
        return try wait(future, location, "Connecting")
    }

    private static func backendProcess(of connection: PostgresConnection) throws -> Int32 {
        let rows = try wait(connection.query(PostgresQuery(unsafeSQL: "SELECT pg_backend_pid()"), logger: logger), PostgresLocation?.none, "pg_backend_pid").rows
        guard let cell = rows.first?.makeRandomAccess()[0].bytes, let pid = cell.getInteger(at: cell.readerIndex, as: Int32.self) else { return 0 }
        return pid
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
    /// How many transactions are open: the outermost one, and savepoints inside it.
    var transactionDepth = 0
    /// The statements prepared on `preparedOn`, by their SQL.
    private var preparedStatements: [String: PreparedQuery] = [:]
    /// The connection `preparedStatements` belong to.
    private var preparedOn: PostgresConnection?
    /// Statements of the open transaction sent and not yet waited for, in order.
    var unanswered: [(future: EventLoopFuture<[PostgresRow]>, sql: String)] = []

    /// Runs one statement and returns every row it produced.
    @discardableResult
    func query(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        let connection = try connectionForStatement()
        let future = issue(sql, bindings, on: connection)
        try awaitUnanswered(before: future, on: connection)
        return try wait(future, sql, on: connection)
    }

    /// Runs one statement and returns every row it produced.
    @discardableResult
    func query(_ statement: PostgresStatement) throws -> [PostgresRow] {
        let connection = try connectionForStatement()
        let future = try issue(statement, on: connection)
        try awaitUnanswered(before: future, on: connection)
        return try wait(future, statement.sql, on: connection)
    }

    /// The keys a `DELETE … RETURNING <key> AS k` removed, gathered server-side into one array, so
    /// that thousands of deleted rows cross the wire as one value rather than a row each.
    func deletedKeys(_ delete: String, _ bindings: PostgresBindings) throws -> [Int64] {
        let rows = try query("WITH d AS (\(delete)) SELECT array_agg(k) FROM d", bindings)
        return rows.first.map { PostgresRowReader($0).int64Array(0) } ?? []
    }

    /// The connection the next statement runs on: the transaction's, or the current one.
    func connectionForStatement() throws -> PostgresConnection {
        guard let transactionConnection else { return try currentConnection() }
        guard !transactionConnection.isClosed else {
            throw SwiftDataError(.storeUnavailable, reason: "The connection to \(location.displayName) was lost during a transaction; the server discarded all of it.")
        }
        return transactionConnection
    }

    /// Sends a statement; the connection runs the statements it is given in order, each as soon
    /// as the one before has finished, without waiting for this thread.
    func issue(_ sql: String, _ bindings: PostgresBindings, on connection: PostgresConnection) -> EventLoopFuture<[PostgresRow]> {
        connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Self.logger).map(\.rows)
    }

    /// Sends a statement; one prepared once per connection runs without being parsed and planned
    /// again. The first use on a connection waits for the statement to be prepared, so that the
    /// statements sent after it still run after it.
    func issue(_ statement: PostgresStatement, on connection: PostgresConnection) throws -> EventLoopFuture<[PostgresRow]> {
        switch statement {
        case .parsed(let sql, let bindings):
            return issue(sql, bindings, on: connection)
        case .prepared(let sql, let arguments):
            if preparedOn !== connection {
                preparedStatements = [:]
                preparedOn = connection
            }
            if let prepared = preparedStatements[sql] { return prepared.execute(arguments) }
            let preparing = connection.prepare(query: sql)
            let prepared: PreparedQuery
            do {
                prepared = try Self.wait(preparing, location, sql)
            } catch {
                // A statement sent before failed, and this one with it: that one's error says why.
                try awaitUnanswered(before: connection.eventLoop.makeSucceededFuture([]), on: connection)
                throw error
            }
            preparedStatements[sql] = prepared
            return prepared.execute(arguments)
        }
    }

    /// Waits for the statements sent before `next`, in order. The first that failed is the error
    /// thrown: the ones after it (and `next`) failed because it did.
    func awaitUnanswered(before next: EventLoopFuture<[PostgresRow]>, on connection: PostgresConnection) throws {
        guard !unanswered.isEmpty else { return }
        let sent = unanswered
        unanswered = []
        for (position, statement) in sent.enumerated() {
            do {
                _ = try wait(statement.future, statement.sql, on: connection)
            } catch {
                for later in sent[(position + 1)...] { Self.settle(later.future) }
                Self.settle(next)
                throw error
            }
        }
    }

    /// Waits for a statement whose outcome no longer matters: the error the caller throws
    /// already explains the failure.
    static func settle(_ future: EventLoopFuture<[PostgresRow]>) {
        do {
            _ = try future.wait()
        } catch {
            // Explained by the caller's error (a statement before this one failed).
        }
    }

    /// Waits for a statement's rows. A connection that is gone (reset, closed, or ended by the
    /// server) is dropped at once, so that the next call connects again rather than waiting for
    /// SwiftNIO to notice the close.
    func wait(_ future: EventLoopFuture<[PostgresRow]>, _ sql: String, on connection: PostgresConnection) throws -> [PostgresRow] {
        do {
            return try future.wait()
        } catch {
            let failure = PostgresFailure.swiftDataError(error, location: location, statement: sql)
            // The connection is gone (reset, closed, or the server ending it: SQLSTATE 57P01).
            if failure == .storeUnavailable {
                lock.lock()
                if self.connection === connection {
                    Self.discard(connection)
                    self.connection = nil
                }
                lock.unlock()
            }
            throw failure
        }
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
}
