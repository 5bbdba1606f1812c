import Dispatch
import OpenSwiftData
import PostgresNIO

/// How statements reach the server. SwiftNIO runs a connection on its event loop's thread, and
/// each call made from another thread (a write, or registering interest in a reply) is a trip to
/// that thread: a wake-up and a context switch. A one-row save is four statements (`BEGIN`, the
/// row, the history row, `COMMIT`), so the session gathers them: statements whose replies are not
/// needed yet wait in `queued`, and go out with the next statement whose reply is needed, in one
/// trip that also arranges to be told when every statement sent so far has been answered. The
/// caller then blocks once, on a semaphore, rather than once per statement.
extension PostgresSession {
    /// A statement resolved for sending: its SQL parsed by the server each time, or a statement
    /// prepared on the connection before.
    private enum Resolved: Sendable {
        case parsed(String, PostgresBindings)
        case prepared(PreparedQuery, [PostgresData])

        /// Sends the statement; called on the connection's event loop, where writing costs no trip.
        func issue(on connection: PostgresConnection) -> EventLoopFuture<[PostgresRow]> {
            switch self {
            case .parsed(let sql, let bindings):
                connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: PostgresSession.logger).map(\.rows)
            case .prepared(let prepared, let arguments):
                prepared.execute(arguments)
            }
        }
    }

    /// What the event loop reports once every statement of a trip has been answered.
    private final class Replies: @unchecked Sendable {
        // @unchecked Sendable: `results` is written once on the event loop before `done` is
        // signalled, and read by the waiting thread only after `done.wait()` returns.
        var results: [Result<[PostgresRow], any Error>] = []
        let done = DispatchSemaphore(value: 0)
    }

    /// Queues a statement of the open transaction, to be sent with the next statement whose reply
    /// is needed. A long queue (a large save) is sent at once, so that the server works through it
    /// while the caller encodes the rest; its failure is thrown by the next statement that waits.
    func enqueue(_ statement: PostgresStatement, on connection: PostgresConnection) throws {
        queued.append(statement)
        queuedBindings += statement.bindingCount
        guard queued.count >= Self.queueLimit || queuedBindings >= Self.queuedBindingLimit else { return }
        let batch = takeQueue()
        let resolved = try resolve(batch, on: connection)
        let promises = resolved.map { _ in connection.eventLoop.makePromise(of: [PostgresRow].self) }
        connection.eventLoop.execute {
            for (statement, promise) in zip(resolved, promises) { statement.issue(on: connection).cascade(to: promise) }
        }
        unanswered.append(contentsOf: zip(promises.map(\.futureResult), batch.map(\.sql)).map { (future: $0, sql: $1) })
        transactionWasSent = true
    }

    /// Sends the queue and `statements` in one trip, waits until every statement sent so far has
    /// been answered, and returns the rows of each of `statements`. The first statement that
    /// failed, in the order they were sent, is the error thrown: the ones after it failed because
    /// it did (the server skips the rest of a failed transaction).
    func run(_ statements: [PostgresStatement], on connection: PostgresConnection) throws -> [[PostgresRow]] {
        let batch = takeQueue() + statements
        let resolved = try resolve(batch, on: connection)
        let earlier = unanswered
        unanswered = []
        if transactionDepth > 0 { transactionWasSent = true }
        let names = earlier.map(\.sql) + batch.map(\.sql)
        let results = try trip(resolved, after: earlier.map(\.future), names: names, on: connection)
        var rows: [[PostgresRow]] = []
        rows.reserveCapacity(statements.count)
        for (index, result) in results.enumerated() {
            switch result {
            case .failure(let error):
                throw failure(error, names[index], on: connection)
            case .success(let answer):
                if index >= names.count - statements.count { rows.append(answer) }
            }
        }
        return rows
    }

    /// Runs statements outside any transaction, each a transaction of its own, in one trip: the
    /// failure of one leaves the others as they went. Returns each statement's rows or error. A
    /// statement whose reply the lost connection took may have been kept by the server or not:
    /// its error is a ``PostgresCommitInDoubt``. Throws when none was sent.
    func runSeparately(_ statements: [PostgresStatement]) throws -> [Result<[PostgresRow], any Error>] {
        guard transactionDepth == 0, queued.isEmpty, unanswered.isEmpty else {
            throw SwiftDataError(.storeFailure, reason: "\(location.displayName) was asked to run statements of their own inside a transaction.")
        }
        let connection = try currentConnection()
        let process = currentServerProcess
        let resolved = try resolve(statements, on: connection)
        let inDoubt = { (error: SwiftDataError) -> any Error in
            error == .storeUnavailable ? PostgresCommitInDoubt(failure: error, process: process, location: self.location) : error
        }
        let results: [Result<[PostgresRow], any Error>]
        do {
            results = try trip(resolved, after: [], names: statements.map(\.sql), on: connection)
        } catch let error as SwiftDataError {
            return statements.map { _ in .failure(inDoubt(error)) }
        }
        return zip(results, statements).map { result, statement in
            result.mapError { inDoubt(failure($0, statement.sql, on: connection)) }
        }
    }

    /// Sends `resolved` in one trip to the connection's event loop and waits until they and the
    /// `earlier` statements have been answered; returns each one's outcome, the earlier first.
    private func trip(
        _ resolved: [Resolved], after earlier: [EventLoopFuture<[PostgresRow]>], names: [String], on connection: PostgresConnection
    ) throws -> [Result<[PostgresRow], any Error>] {
        let replies = Replies()
        let started = observer == nil ? 0 : StoreObserver.now()
        // The round trip is reported under the statement it waited for: the last one sent.
        defer { if let observer, let awaited = names.last { observer.ranStatement(awaited, since: started) } }
        connection.eventLoop.execute {
            let futures = earlier + resolved.map { $0.issue(on: connection) }
            EventLoopFuture.whenAllComplete(futures, on: connection.eventLoop).whenComplete { outcome in
                // whenAllComplete never fails; each statement's own result is in the array.
                if case .success(let results) = outcome { replies.results = results }
                replies.done.signal()
            }
        }
        try awaitReplies(replies, on: connection, names: names)
        guard replies.results.count == names.count else {
            throw SwiftDataError(.storeUnavailable, reason: "\(location.displayName) answered \(replies.results.count) of \(names.count) statements.")
        }
        return replies.results
    }

    /// Waits until the event loop reports every reply of a trip. A connection that closes fails
    /// the statements waiting on it, and the wait ends with them; should a reply still never come
    /// once the connection is closed (the server ended the session as the statements went out),
    /// the wait ends a grace period later with the connection lost, rather than never: nothing
    /// can arrive on a closed connection.
    private func awaitReplies(_ replies: Replies, on connection: PostgresConnection, names: [String]) throws {
        guard Self.wait(for: replies.done, unlessClosed: { connection.isClosed }) else {
            let awaited = names.last ?? "a statement"
            throw failure(
                SwiftDataError(.storeUnavailable, reason: "The connection to \(location.displayName) closed before it answered \(awaited)."),
                awaited, on: connection)
        }
    }

    /// Waits for `signal`; returns `false` instead once `isClosed` has said so at
    /// ``closedConnectionChecks`` checks in a row, one ``closedConnectionCheck`` apart.
    static func wait(for signal: DispatchSemaphore, unlessClosed isClosed: () -> Bool) -> Bool {
        var closedFor = 0
        while signal.wait(timeout: .now() + closedConnectionCheck) == .timedOut {
            closedFor = isClosed() ? closedFor + 1 : 0
            if closedFor >= closedConnectionChecks { return false }
        }
        return true
    }

    /// How often a long wait for replies checks that its connection is still open.
    static let closedConnectionCheck = DispatchTimeInterval.seconds(1)
    /// How many checks in a row must find the connection closed before the wait gives up.
    static let closedConnectionChecks = 2

    /// Waits for the statements sent and not yet answered; throws the first failure among them.
    func settleUnanswered(on connection: PostgresConnection) throws {
        guard !unanswered.isEmpty else { return }
        _ = try run([], on: connection)
    }

    /// Empties the queue, returning what it held.
    @discardableResult
    func takeQueue() -> [PostgresStatement] {
        defer {
            queued = []
            queuedBindings = 0
        }
        return queued
    }

    /// Prepares `statement` on the connection now, if it is a prepared statement not prepared on
    /// it yet; throws as sending it would (the first failure among the statements sent before).
    func prepareAhead(_ statement: PostgresStatement, on connection: PostgresConnection) throws {
        _ = try resolve([statement], on: connection)
    }

    /// Resolves statements for sending, preparing on this connection (and waiting for it, once per
    /// statement and connection) each prepared statement not prepared on it yet.
    private func resolve(_ statements: [PostgresStatement], on connection: PostgresConnection) throws -> [Resolved] {
        do {
            return try statements.map { statement in
                switch statement {
                case .parsed(let sql, let bindings):
                    .parsed(sql, bindings)
                case .prepared(let sql, let arguments):
                    .prepared(try prepared(sql, on: connection), arguments)
                }
            }
        } catch {
            // A statement sent before failed, and the preparation with it (the server refuses
            // everything in a failed transaction): that one's error says why.
            try settleUnanswered(on: connection)
            throw error
        }
    }

    /// The statements queued at most, or their parameters, before they are sent without waiting.
    private static let queueLimit = 64
    private static let queuedBindingLimit = 4_096
}
