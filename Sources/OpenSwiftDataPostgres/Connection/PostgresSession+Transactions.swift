import OpenSwiftData
import PostgresNIO

/// Transactions on a session. Inside one, statements whose results a save does not need (`BEGIN`,
/// inserts with keys drawn ahead, updates) are queued and sent with the next statement whose
/// result it needs, in one trip to the connection's event loop; the first failure among them is
/// the error that statement's wait throws. A one-row save sends `BEGIN`, its statements and
/// `COMMIT` together and waits once.
extension PostgresSession {
    /// Starts a transaction on the current connection (connecting first when it was lost); inside
    /// an open transaction, a savepoint that ``commit()`` releases and ``rollback()`` returns to.
    /// The outermost `BEGIN` is queued: it goes to the server with the transaction's first
    /// statement that waits.
    func begin() throws {
        if transactionDepth > 0 {
            try query("SAVEPOINT osd_\(transactionDepth)")
            transactionDepth += 1
            return
        }
        let connection = try currentConnection()
        transactionConnection = connection
        transactionProcess = currentServerProcess
        transactionDepth = 1
        transactionWasSent = false
        takeQueue()
        queued = [.parsed("BEGIN", PostgresBindings())]
    }

    /// Queues a statement of the open transaction; its failure is thrown by the next statement
    /// that waits. Outside a transaction, runs it and waits.
    func send(_ sql: String, _ bindings: PostgresBindings) throws {
        try send(.parsed(sql, bindings))
    }

    /// Queues a statement of the open transaction; its failure is thrown by the next statement
    /// that waits. Outside a transaction, runs it and waits.
    func send(_ statement: PostgresStatement) throws {
        guard transactionDepth > 0 else {
            try query(statement)
            return
        }
        try enqueue(statement, on: try connectionForStatement())
    }

    /// Commits the transaction, or releases the innermost savepoint. Does nothing when
    /// ``queryCommitting(_:folding:)`` has committed the transaction already. If the connection
    /// is lost before the server's reply, the error says that whether the server kept the
    /// transaction is unknown.
    func commit() throws {
        do {
            try commitReportingDoubt()
        } catch let doubt as PostgresCommitInDoubt {
            throw doubt.unknownOutcome
        }
    }

    /// ``commit()``, except that when the connection is lost before the server's reply to the
    /// outermost `COMMIT`, the error is a ``PostgresCommitInDoubt``, for a caller that can learn
    /// from the server whether it kept the transaction.
    func commitReportingDoubt() throws {
        guard transactionDepth > 0 else { return }
        if transactionDepth > 1 {
            transactionDepth -= 1
            try query("RELEASE SAVEPOINT osd_\(transactionDepth)")
            return
        }
        defer { endTransaction() }
        let connection = try connectionForStatement()
        try committing { _ = try run([.parsed("COMMIT", PostgresBindings())], on: connection) }
    }

    /// Runs the last statement of the outermost transaction with its `COMMIT` sent right behind
    /// it, so that the server commits without waiting for this thread; ``commit()`` then has
    /// nothing left to do. If a statement fails, the server ends the failed transaction at the
    /// `COMMIT` as a `ROLLBACK`, and the statement's error is thrown. Inside a savepoint, runs the
    /// statement alone.
    ///
    /// When the transaction's only other statement is still queued (nothing has gone to the
    /// server), `folding` may turn it into one statement that does both; that statement then runs
    /// alone, without `BEGIN` and `COMMIT`: PostgreSQL runs a single statement as a transaction of
    /// its own, all of it or none. A one-row save is then one round trip to the server instead of
    /// four (postgres-nio sends a connection's statements one at a time).
    ///
    /// If the connection is lost before the reply, the error is a ``PostgresCommitInDoubt``: the
    /// caller learns from the server whether it kept the transaction
    /// (``PostgresBackend/settle(_:token:inserted:)``) rather than report a save as lost that
    /// was kept.
    func queryCommitting(_ last: PostgresStatement, folding: (PostgresStatement) -> PostgresStatement? = { _ in nil }) throws -> [PostgresRow] {
        guard transactionDepth == 1 else { return try query(last) }
        let connection = try connectionForStatement()
        // Prepared before anything goes out: a statement that fails to prepare (the transaction
        // failed already, and the server refuses everything else) stops the commit before its
        // `COMMIT` is sent, and the transaction stays open for ``rollback()`` to end.
        if transactionWasSent || !unanswered.isEmpty { try prepareAhead(last, on: connection) }
        defer { endTransaction() }
        if !transactionWasSent, unanswered.isEmpty, queued.count == 2, queued[0].sql == "BEGIN", let folded = folding(queued[1]) {
            takeQueue()
            return try committing { try run([folded], on: connection)[0] }
        }
        return try committing { try run([last, .parsed("COMMIT", PostgresBindings())], on: connection)[0] }
    }

    /// Runs the trip that commits the transaction. If the connection is lost before its reply
    /// arrives, the server may have committed or not: the error is a ``PostgresCommitInDoubt``.
    private func committing<R>(_ trip: () throws -> R) throws -> R {
        do {
            return try trip()
        } catch let error as SwiftDataError where error == .storeUnavailable {
            throw PostgresCommitInDoubt(failure: error, process: transactionProcess, location: location)
        }
    }

    /// Rolls the transaction back, or the work since the innermost savepoint. On a lost
    /// connection there is nothing to roll back: the server discarded the transaction with the
    /// connection.
    func rollback() {
        if transactionDepth > 1 {
            transactionDepth -= 1
            do {
                try query("ROLLBACK TO SAVEPOINT osd_\(transactionDepth)")
                try query("RELEASE SAVEPOINT osd_\(transactionDepth)")
            } catch {
                // The connection is gone or the outer transaction failed: the outermost rollback
                // discards everything, and the caller rethrows the error that made it roll back.
            }
            return
        }
        defer { endTransaction() }
        // Statements never sent are dropped; if none was, the server never saw the transaction.
        takeQueue()
        guard transactionWasSent, let connection = transactionConnection, !connection.isClosed else { return }
        do {
            _ = try run([.parsed("ROLLBACK", PostgresBindings())], on: connection)
        } catch {
            // A statement sent before failed (the reason the caller rolls back, and rethrows), or
            // the connection is gone, and the server discards an open transaction with its
            // connection (`failure` has dropped the connection). Either way nothing is kept:
            // after a failed statement the server ends the transaction at the ROLLBACK.
        }
    }

    /// Forgets the outermost transaction, once it committed or rolled back.
    private func endTransaction() {
        transactionConnection = nil
        transactionProcess = nil
        transactionDepth = 0
        transactionWasSent = false
        takeQueue()
        unanswered = []
    }
}
