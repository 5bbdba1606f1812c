import CSQLite

/// One SQLite database connection: the owner of an `sqlite3*` and of its prepared-statement cache.
///
/// A connection is used by one thread at a time; ``SQLiteStore`` serializes access to it. It is
/// opened with `SQLITE_OPEN_NOMUTEX` because that serialization makes SQLite's own locking redundant.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var statementCache = StatementCache()
    /// The statements every save runs, by ``FixedStatement``. Read or set once per look, with no
    /// call inside the access that could reach the connection again (a released statement only
    /// finalizes itself), so it skips the run-time exclusivity check: several saves read it.
    @exclusivity(unchecked) private var fixedStatements = [SQLiteStatement?](repeating: nil, count: FixedStatement.allCases.count)
    /// Statements found by the object whose SQL they run (a table's insert, by its layout): a
    /// few identity comparisons instead of hashing the text. Each owner is held, so that its
    /// identity is not taken by another object while it names a statement. (Skips the run-time
    /// exclusivity check as ``fixedStatements`` does; its owners are the store's own objects.)
    @exclusivity(unchecked) private var ownedStatements: [(owner: AnyObject, statement: SQLiteStatement)] = []
    private static let ownedStatementLimit = 16
    /// The key floors this connection read, while its database has not changed since
    /// (``SQLiteStore/keyFloor(of:on:)``).
    var knownKeyFloors = KnownKeyFloors()

    /// Opens (or, when `create` is true, creates) the database at `path`.
    init(path: String, readOnly: Bool, create: Bool) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, message: "\(message) (\(path))", sql: nil)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5_000)
        SwiftSemantics.register(on: db)
        SwiftSum.register(on: db)
    }

    /// Whether ``close()`` closed the connection.
    private(set) var isClosed = false

    deinit {
        close()
    }

    /// Finalizes the connection's statements and closes it. Nothing may use the connection
    /// afterwards; closing it again does nothing.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        clearStatementCache()
        sqlite3_close_v2(handle)
    }

    /// Whether the database file this connection opened is no longer at its path: moved, renamed or
    /// deleted by someone else. SQLite goes on writing to the file it holds, so a commit would land
    /// where the next open does not look. (One `stat` of the path; in-memory databases never move.)
    var fileHasMoved: Bool {
        var moved: Int32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved != 0
    }

    /// SQLite's count of changes to the main database as this connection sees it: it moves on
    /// every commit, this connection's or another's (another's once this connection next begins a
    /// transaction); `nil` if SQLite does not say. Unlike `PRAGMA data_version`, no statement runs.
    /// (A database name of `NULL` is the main database, without comparing names.)
    var dataVersion: UInt32? {
        var version: UInt32 = 0
        return sqlite3_file_control(handle, nil, SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK ? version : nil
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: code, message: message, sql: sql)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): everything it writes lands, or
    /// nothing does. The error that stopped `body` is the one thrown; the rollback after it is
    /// only a clean-up (SQLite may have rolled back already), so its own failure is not reported.
    @discardableResult
    func writeTransaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in one read transaction, so that everything it reads comes from one state of the
    /// database, whatever other connections commit meanwhile. The error that stopped `body` is the
    /// one thrown; ending a read transaction after it changes nothing, so its own failure is not
    /// reported.
    func readTransaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN")
        let result: R
        do {
            result = try body()
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        try execute("COMMIT")
        return result
    }

    /// Calls `body` with each row a statement returns, as stored values; statements whose text is
    /// not fixed (tools' queries) are prepared for this call only.
    func forEachRow(_ sql: String, _ arguments: [StoredValue] = [], _ body: ([StoredValue]) throws -> Void) throws {
        let statement = try uncachedStatement(sql)
        try statement.bind(arguments)
        let count = sqlite3_column_count(statement.handle)
        while try statement.step() {
            try body((0..<count).map { statement.value($0) })
        }
    }

    /// The rows a statement returns, as stored values.
    func rows(_ sql: String, _ arguments: [StoredValue] = []) throws -> [[StoredValue]] {
        var rows: [[StoredValue]] = []
        try forEachRow(sql, arguments) { rows.append($0) }
        return rows
    }

    /// Returns the cached prepared statement for `sql`, preparing it on first use. The statement is
    /// reset and its bindings cleared. While the cached statement is still stepping through rows (a
    /// nested call on the same connection runs the same query), a fresh one is prepared instead.
    func statement(_ sql: String) throws -> SQLiteStatement {
        let key = CachedSQL(sql)
        if let statement = statementCache.statement(for: key) {
            if statement.isBusy { return try uncachedStatement(sql) }
            statement.reset()
            return statement
        }
        let statement = try SQLiteStatement(connection: self, sql: sql, persistent: true)
        statementCache.keep(statement, for: key)
        return statement
    }

    /// Returns the statement for `sql`, the one SQL text `owner` stands for, reset and its
    /// bindings cleared; found by the owner's identity after the first time.
    func statement(_ sql: @autoclosure () -> String, ownedBy owner: AnyObject) throws -> SQLiteStatement {
        if let entry = ownedStatements.first(where: { $0.owner === owner }) {
            if entry.statement.isBusy { return try uncachedStatement(sql()) }
            entry.statement.reset()
            return entry.statement
        }
        let statement = try self.statement(sql())
        if ownedStatements.count == Self.ownedStatementLimit { ownedStatements.removeFirst() }
        ownedStatements.append((owner, statement))
        return statement
    }

    /// Returns one of the statements every save runs, reset, preparing it on first use. Its
    /// bindings are kept: each use binds every parameter its SQL has (``FixedStatement``).
    func statement(_ fixed: FixedStatement) throws -> SQLiteStatement {
        if let statement = fixedStatements[fixed.rawValue], !statement.isBusy {
            statement.resetKeepingBindings()
            return statement
        }
        let statement = try SQLiteStatement(connection: self, sql: fixed.sql, persistent: true)
        fixedStatements[fixed.rawValue] = statement
        return statement
    }

    /// Prepares a statement that is used once.
    func uncachedStatement(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql, persistent: false)
    }

    /// Forgets every cached statement, for example after the schema changed.
    func clearStatementCache() {
        statementCache.removeAll()
        fixedStatements = fixedStatements.map { _ in nil }
        ownedStatements.removeAll()
    }

    /// The rowid of the last inserted row.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The most parameters one statement may have on this connection.
    var parameterLimit: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// Whether SQLite's parser takes `sql`: `false` only when its stack overflows or the
    /// expression is too deep, whatever else (a missing table or function) is wrong with it.
    func parses(_ sql: String) -> Bool {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil)
        sqlite3_finalize(statement)
        guard code != SQLITE_OK else { return true }
        let message = lastErrorMessage
        return !message.contains("parser stack overflow") && !message.contains("too large")
    }

    /// The number of rows the last statement changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether the connection is inside a transaction.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Throws the connection's current error for a failed call.
    func check(_ code: Int32, sql: String? = nil) throws {
        if code != SQLITE_OK && code != SQLITE_ROW && code != SQLITE_DONE {
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: lastErrorMessage, sql: sql)
        }
    }

    /// Runs a query returning one integer, or `nil` if it returns no row.
    func integer(_ sql: String) throws -> Int64? {
        let statement = try uncachedStatement(sql)
        return try statement.step() ? statement._int64(0) : nil
    }
}
