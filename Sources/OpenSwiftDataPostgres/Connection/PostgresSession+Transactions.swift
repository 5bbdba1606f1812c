import OpenSwiftData
import PostgresNIO

/// Transactions on a session. Inside one, statements whose results a save does not need (`BEGIN`,
/// inserts with keys drawn ahead, updates) are sent without waiting for them: the connection runs
/// them in order while the caller prepares the next, and the first failure among them is the
/// error the next wait throws. A one-row save waits once, for its last statement and the `COMMIT`
/// behind it.
extension PostgresSession {
    /// Starts a transaction on the current connection (connecting first when it was lost); inside
    /// an open transaction, a savepoint that ``commit()`` releases and ``rollback()`` returns to.
    /// The outermost `BEGIN` is not waited for: its outcome arrives with the next statement's.
    func begin() throws {
        if transactionDepth > 0 {
            try query("SAVEPOINT osd_\(transactionDepth)")
            transactionDepth += 1
            return
        }
        let connection = try currentConnection()
        transactionConnection = connection
        transactionDepth = 1
        unanswered = [(issue("BEGIN", PostgresBindings(), on: connection), "BEGIN")]
    }

    /// Sends a statement of the open transaction without waiting for it; its failure is thrown by
    /// the next statement that waits. Outside a transaction, runs it and waits.
    func send(_ sql: String, _ bindings: PostgresBindings) throws {
        try send(.parsed(sql, bindings))
    }

    /// Sends a statement of the open transaction without waiting for it; its failure is thrown by
    /// the next statement that waits. Outside a transaction, runs it and waits.
    func send(_ statement: PostgresStatement) throws {
        guard transactionDepth > 0 else {
            try query(statement)
            return
        }
        let connection = try connectionForStatement()
        unanswered.append((try issue(statement, on: connection), statement.sql))
    }

    /// Commits the transaction, or releases the innermost savepoint. Does nothing when
    /// ``queryCommitting(_:)`` has committed the transaction already.
    func commit() throws {
        guard transactionDepth > 0 else { return }
        if transactionDepth > 1 {
            transactionDepth -= 1
            try query("RELEASE SAVEPOINT osd_\(transactionDepth)")
            return
        }
        defer { endTransaction() }
        try query("COMMIT")
    }

    /// Runs the last statement of the outermost transaction with its `COMMIT` sent right behind
    /// it, so that the server commits without waiting for this thread; ``commit()`` then has
    /// nothing left to do. If a statement fails, the server ends the failed transaction at the
    /// `COMMIT` as a `ROLLBACK`, and the statement's error is thrown. Inside a savepoint, runs the
    /// statement alone.
    func queryCommitting(_ last: PostgresStatement) throws -> [PostgresRow] {
        guard transactionDepth == 1 else { return try query(last) }
        let connection = try connectionForStatement()
        let sql = last.sql
        let statement = try issue(last, on: connection)
        let commit = issue("COMMIT", PostgresBindings(), on: connection)
        defer { endTransaction() }
        let rows: [PostgresRow]
        do {
            try awaitUnanswered(before: statement, on: connection)
            rows = try wait(statement, sql, on: connection)
        } catch {
            // The COMMIT behind the failed statement rolled the transaction back; the statement's
            // error says why.
            Self.settle(commit)
            throw error
        }
        _ = try wait(commit, "COMMIT", on: connection)
        return rows
    }

    /// Rolls the transaction back, or the work since the innermost savepoint. On a lost
    /// connection there is nothing to roll back: the server discarded the transaction with the
    /// connection.
    func rollback() {
        // Statements sent and not waited for: their outcome no longer matters.
        for statement in unanswered { Self.settle(statement.future) }
        unanswered = []
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
        guard let connection = transactionConnection, !connection.isClosed else { return }
        do {
            _ = try wait(issue("ROLLBACK", PostgresBindings(), on: connection), "ROLLBACK", on: connection)
        } catch {
            // Nothing is lost: ROLLBACK fails only when the connection is gone, and the server
            // discards an open transaction with its connection (`wait` has dropped the connection).
            // The caller rethrows the error that made it roll back.
        }
    }

    /// Forgets the outermost transaction, once it committed or rolled back.
    private func endTransaction() {
        transactionConnection = nil
        transactionDepth = 0
        unanswered = []
    }
}
