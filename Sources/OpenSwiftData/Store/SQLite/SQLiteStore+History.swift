import Foundation

/// The history of an SQLite store: one row per saved transaction, written in the save's own SQLite
/// transaction, holding what each change needs (entity, kind, key, changed-property mask, preserved
/// values), not copies of rows. The changes are one BLOB: per run of changes of one kind to one
/// entity, the kind, the entity name, the keys (and update masks) as little-endian 64-bit integers,
/// and the preserved values as JSON. One row, one page at most, per save. See docs/StorageLayout.md.
///
/// Transaction numbers only grow: the newest row is never removed (a deletion keeps it, emptied
/// and marked deleted), so SQLite's next rowid is always past every number handed out.
extension SQLiteStore {
    /// The history table; created with the store, and on opening a store from before history.
    static let historyTables = [
        "CREATE TABLE IF NOT EXISTS osd_history (id INTEGER PRIMARY KEY, timestamp REAL NOT NULL, author TEXT, bundle TEXT NOT NULL, process TEXT NOT NULL, origin INTEGER NOT NULL, changes BLOB, deleted INTEGER NOT NULL DEFAULT 0) STRICT",
    ]

    func historyTransactions(after id: Int64) throws -> [StoreHistoryTransaction] {
        try withReader { connection in
            guard try Self.hasHistory(connection) else { return [] }
            var transactions: [StoreHistoryTransaction] = []
            let select = try connection.statement("SELECT \(StoreHistoryTransaction.rowColumns) FROM osd_history WHERE id > ? AND deleted = 0 ORDER BY id")
            defer { select.reset() }
            try select._bind(id, 0)
            while try select.step() {
                transactions.append(try StoreHistoryTransaction(row: select, place: path))
            }
            return transactions
        }
    }

    /// Whether the store has its history table (a read-only store from before history has none).
    static func hasHistory(_ connection: SQLiteConnection) throws -> Bool {
        try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'osd_history'") == 1
    }

    func deleteHistory(transactions ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        guard !isReadOnly else { throw SwiftDataError(.storeIsReadOnly, reason: "The store at \(path) is read-only; its history cannot be deleted.") }
        try withConnection { connection in
            try connection.writeTransaction {
                try checkNoPlanIsMigrating()
                try Self.removeHistory(ids, on: connection)
                try Self.markHistoryDeleted(through: ids.max() ?? 0, on: connection)
                try checkFileInPlace(connection)
            }
        }
    }

    /// Removes transactions; the newest row of the table stays, emptied and marked deleted, so that
    /// transaction numbers are never handed out twice.
    static func removeHistory(_ ids: [Int64], on connection: SQLiteConnection) throws {
        let newest = try connection.integer("SELECT max(id) FROM osd_history") ?? 0
        let delete = try connection.statement("DELETE FROM osd_history WHERE id = ?")
        let empty = try connection.statement("UPDATE osd_history SET changes = NULL, author = NULL, deleted = 1 WHERE id = ?")
        for id in ids {
            let statement = id == newest ? empty : delete
            try statement._bind(id, 0)
            try statement.run()
            statement.reset()
        }
    }

    /// Records that history up to a transaction was deleted, keeping the highest mark.
    static func markHistoryDeleted(through id: Int64, on connection: SQLiteConnection) throws {
        let mark = try connection.statement("INSERT INTO osd_metadata (key, value) VALUES ('historyDeletedThrough', ?) ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)")
        defer { mark.reset() }
        try mark._bind(id, 0)
        try mark.run()
    }

    /// SQLite's `data_version` of the writer connection: it changes when another connection commits.
    func externalCommitMarker() throws -> Int64? {
        try withConnection { connection in
            let version = try connection.statement(.dataVersion)
            defer { version.reset() }
            return try version.step() ? version._int64(0) : nil
        }
    }

    func latestHistoryTransaction() throws -> Int64 {
        try withReader { connection in
            guard try Self.hasHistory(connection) else { return 0 }
            return try connection.integer("SELECT max(id) FROM osd_history") ?? 0
        }
    }

    func historyDeletedThrough() throws -> Int64 {
        try withReader { connection in
            try connection.integer("SELECT value FROM osd_metadata WHERE key = 'historyDeletedThrough'") ?? 0
        }
    }
}


extension TableLayout {
    /// The attributes whose values a deletion keeps in the history (`.preserveValueOnDeletion`).
    var preservedAttributes: [Int] {
        entity.fields.indices.filter { index in
            columns[index] != nil && entity.fields[index].attribute?.options.contains(.preserveValueOnDeletion) == true
        }
    }

    /// The values of the preserved attributes of the rows a statement selects, with the key in
    /// column 0 and the attributes after it, by key.
    func preservedValues(from statement: SQLiteStatement, attributes: [Int]) throws -> [Int64: [String: SnapshotValue]] {
        var values: [Int64: [String: SnapshotValue]] = [:]
        while try statement.step() {
            var row: [String: SnapshotValue] = [:]
            for (offset, index) in attributes.enumerated() {
                let field = entity.fields[index]
                row[field.name] = try field.storage.map { try SnapshotValue(statement, column: Int32(offset + 1), storage: $0) } ?? .null
            }
            values[statement._int64(0)] = row
        }
        return values
    }
}

extension HistoryLog {
    /// Records the transaction: inserts, then updates, then deletions, each in the order made.
    func write(author: String?, origin: Int64, on connection: SQLiteConnection) throws -> Int64 {
        let insert = try connection.statement(.recordHistory)
        // Every parameter is bound below, each time: clearing them first would be wasted work.
        defer { insert.resetKeepingBindings() }
        try insert._bind(Date().timeIntervalSinceReferenceDate, 0)
        if let author { try insert._bind(author, 1) } else { try insert._bindNull(1) }
        try insert._bind(origin, 2)
        try encoded().withUnsafeBytes { try insert._bind(bytes: $0, 3) }
        try insert.run()
        return connection.lastInsertedRowID
    }
}
