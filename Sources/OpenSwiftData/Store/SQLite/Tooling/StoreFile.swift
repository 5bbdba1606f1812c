import CSQLite

/// An OpenSwiftData store file opened without its model classes, from the schema it records: what
/// tools such as `osd` read, query and import through.
///
/// Reading never modifies the file (a store without pending WAL content is opened as immutable);
/// writing happens only inside ``transaction(_:)``, all or nothing. Opening checks what the store
/// itself checks and throws a ``SwiftDataError`` that says what is wrong: no file, not an SQLite
/// database, not an OpenSwiftData store, written by a newer version, no readable schema record,
/// an interrupted migration.
package final class StoreFile {
    package let path: String
    /// The schema the store records.
    package let schema: StoredSchema
    /// The store's format number (``formatVersion`` for stores this version writes).
    package let format: Int64
    /// The store's identifier, as persistent identifiers name it.
    package let identifier: String?
    package let isWritable: Bool
    let connection: SQLiteConnection

    /// The newest store format this version reads and writes.
    package static var formatVersion: Int64 { SQLiteStore.formatVersion }

    /// Opens the store at `path` for reading, or for reading and writing. Opened for reading with
    /// `following`, each statement sees what other processes have committed since (the file is
    /// opened as apps open it, never as immutable, so SQLite may create its `-wal` and `-shm`).
    package init(path: String, writable: Bool = false, following: Bool = false) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SwiftDataError(.storeIsReadOnly, reason: "There is no store at \(path).")
        }
        if FileManager.default.fileExists(atPath: MigrationJournal.markerPath(of: path)) {
            throw SwiftDataError(.migrationFailed, reason: "The store at \(path) has an unfinished migration (\(MigrationJournal.markerPath(of: path)) exists); open it with the app's models once to finish or roll it back.")
        }
        guard let inspection = try StoreFileInspection.inspect(path: path) else {
            throw SwiftDataError(.storeIsNotSQLite, reason: "The file at \(path) is empty, not a store.")
        }
        guard inspection.format <= SQLiteStore.formatVersion else {
            throw SwiftDataError(.storeFromNewerVersion, reason: "The store at \(path) has format \(inspection.format); this version of OpenSwiftData reads up to \(SQLiteStore.formatVersion). The file was not changed.")
        }
        guard let schema = inspection.schema else {
            throw SwiftDataError(.schemaMismatch, reason: "The SQLite database at \(path) has no tables yet: it is not an OpenSwiftData store.")
        }
        self.schema = schema
        self.format = inspection.format
        self.identifier = inspection.identifier
        self.isWritable = writable
        do {
            if writable {
                connection = try SQLiteConnection(path: path, readOnly: false, create: false)
                try connection.execute(SQLiteStore.pragmas)
            } else if following {
                connection = try SQLiteConnection(path: path, readOnly: true, create: false)
            } else {
                connection = try StoreFileInspection.readOnlyConnection(path: path)
            }
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Opening \(path)")
        }
    }

    /// Calls `body` with each row the statement returns, as stored values.
    package func forEachRow(_ sql: String, _ arguments: [StoredValue] = [], _ body: ([StoredValue]) throws -> Void) throws {
        try translatingErrors { try connection.forEachRow(sql, arguments, body) }
    }

    /// The rows the statement returns.
    package func rows(_ sql: String, _ arguments: [StoredValue] = []) throws -> [[StoredValue]] {
        var rows: [[StoredValue]] = []
        try forEachRow(sql, arguments) { rows.append($0) }
        return rows
    }

    /// The first column of the statement's first row as an integer, or `nil` when there is none.
    package func integer(_ sql: String, _ arguments: [StoredValue] = []) throws -> Int64? {
        guard case .integer(let value)? = try rows(sql, arguments).first?.first else { return nil }
        return value
    }

    /// Runs a statement that returns no rows; returns the row ID of the row it inserted, if any.
    @discardableResult
    package func run(_ sql: String, _ arguments: [StoredValue] = []) throws -> Int64 {
        try translatingErrors {
            let statement = try connection.statement(sql)
            defer { statement.reset() }
            try statement.bind(arguments)
            try statement.run()
            return connection.lastInsertedRowID
        }
    }

    /// Runs `body` in one write transaction: everything it writes lands, or nothing does.
    @discardableResult
    package func transaction<R>(_ body: () throws -> R) throws -> R {
        guard isWritable else {
            throw SwiftDataError(.storeIsReadOnly, reason: "The store at \(path) was opened for reading.")
        }
        try translatingErrors { try connection.execute("BEGIN IMMEDIATE") }
        do {
            let result = try body()
            try translatingErrors { try connection.execute("COMMIT") }
            return result
        } catch {
            try? connection.execute("ROLLBACK")   // the error that stopped the body is the one to report
            throw error
        }
    }

    /// Runs `body` in one read transaction, so that everything it reads comes from one state of the
    /// store, whatever other processes commit meanwhile.
    package func reading<R>(_ body: () throws -> R) throws -> R {
        try translatingErrors { try connection.readTransaction(body) }
    }

    /// Records a history transaction of inserted rows (entity name, primary keys), so that apps
    /// following the store see them as they see another process's save. Call inside ``transaction(_:)``.
    package func recordInsertions(_ keys: [(entity: String, keys: [Int64])], author: String) throws {
        var log = HistoryLog()
        for (entity, keys) in keys { for key in keys { log.insert(entityName: entity, key: key) } }
        guard !log.isEmpty else { return }
        try translatingErrors { _ = try log.write(author: author, origin: 0, on: connection) }
    }

    /// The result of `PRAGMA integrity_check` and `PRAGMA foreign_key_check`: empty when the file is sound.
    package func integrityProblems() throws -> [String] {
        var problems: [String] = []
        try forEachRow("PRAGMA integrity_check") { row in
            if case .text(let message) = row.first, message != "ok" { problems.append(message) }
        }
        return problems
    }

    /// The number of history transactions the store keeps.
    package func historyTransactionCount() throws -> Int64 {
        let hasHistory = try integer("SELECT count(*) FROM sqlite_master WHERE name = 'osd_history'") ?? 0
        guard hasHistory > 0 else { return 0 }
        return try integer("SELECT count(*) FROM osd_history WHERE deleted = 0") ?? 0
    }

    /// The names of the tables and indexes in the file.
    package func schemaObjects() throws -> [(type: String, name: String)] {
        try rows("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name").compactMap { row in
            guard case .text(let type) = row[0], case .text(let name) = row[1] else { return nil }
            return (type, name)
        }
    }

    /// SQL for a filter and a sort over the table `table`: the text after `WHERE` (or empty) and
    /// after `ORDER BY`, and the values to bind, in order. The same compiler as a fetch's.
    package static func sql(
        filter: QueryExpression?, sort: [QuerySort], table: String
    ) -> (whereClause: String, orderBy: String, arguments: [StoredValue]) {
        var compiler = SQLCompiler(table: quote(table))
        let whereClause = filter.map { compiler.sql($0) } ?? ""
        let orderBy = compiler.orderBy(sort)
        return (whereClause, orderBy, compiler.arguments)
    }

    /// Quotes an identifier for SQL.
    package static func quote(_ identifier: String) -> String { SQL.quote(identifier) }

    /// The primary-key column of every entity table.
    package static let primaryKeyColumn = TableLayout.primaryKey

    /// The table that hands out primary keys for a class hierarchy rooted at `root`.
    package static func sharedKeysTable(root: String) -> String { "osd_keys_\(root)" }

    func translatingErrors<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw error.swiftDataError
        }
    }
}

extension StoreFile {
    /// Creates a plain SQLite database at `path` by running `sql`: a file that is not a store, for
    /// tests of what tools do with one.
    package static func foreignDatabase(at path: String, sql: String) throws {
        let connection = try SQLiteConnection(path: path, readOnly: false, create: true)
        try connection.execute(sql)
    }
}
