import Foundation
import OpenSwiftData
import PostgresNIO

/// The history of a PostgreSQL store: one row per saved transaction in `osd_history`, written in
/// the save's own transaction, in the same encoding as the SQLite store's (see
/// docs/StorageLayout.md). Numbers come from a counter row (`historyNext` in `osd_metadata`) that
/// each save increments in the statement that records its transaction: the row stays locked until
/// the save commits, so numbers are handed out in commit order, without gaps a reader could skip
/// past (a save that rolls back takes its increment with it), and never repeat.
extension PostgresBackend: HistoryRecordingStore {
    /// Records a save's history transaction and announces the save (`pg_notify`, delivered at
    /// commit); returns its number. The record is the save's last statement: its `COMMIT` follows
    /// it without a wait (``PostgresSession/queryCommitting(_:folding:)``).
    ///
    /// If the connection is lost before the server's reply, the server is asked whether it kept
    /// the save, by the record's token (``settle(_:token:inserted:)``): a save it kept returns as
    /// saved; one it did not throws.
    func record(_ history: HistoryLog, author: String?, origin: Int64, inserted: [any PersistentModel], on session: PostgresSession) throws -> Int64 {
        let identity = HistoryLog.processIdentity
        let timestamp = Date().timeIntervalSinceReferenceDate
        let changes = ByteBuffer(bytes: try history.encoded())
        let token = Int64.random(in: .min ... .max)
        let arguments = Self.recordArguments(timestamp: timestamp, author: author, origin: origin, changes: changes, token: token)
        // Prepared: the same statement ends every save. Its parameters are cast, so that their
        // types are the arguments' types. A save whose only write is one statement (one new row,
        // or one run of updates) makes the write and the record in one statement.
        let statement = PostgresStatement.prepared(recordSQL, arguments)
        let folding = { (write: PostgresStatement) -> PostgresStatement? in
            switch write {
            case .prepared(let sql, let writeArguments):
                guard let folded = self.recordSQLAfterInsert[sql] else { return nil }
                return .prepared(folded, writeArguments + arguments)
            case .parsed(let sql, var bindings):
                // Only a plain `INSERT`, `UPDATE` or `DELETE` can run inside a `WITH`, and the
                // record adds its own `RETURNING`.
                guard ["INSERT ", "UPDATE ", "DELETE "].contains(where: sql.hasPrefix), !sql.contains("RETURNING"),
                      bindings.count + arguments.count <= PostgresSQL.maximumParameters else { return nil }
                let folded = Self.recordSQL(namespace: self.namespace, channel: self.channel, after: (sql, bindings.count))
                bindings.append(timestamp)
                if let author { bindings.append(author) } else { bindings.appendNull() }
                bindings.append(identity.bundle)
                bindings.append(identity.process)
                bindings.append(origin)
                bindings.append(changes)
                bindings.append(token)
                return .parsed(folded, bindings)
            }
        }
        let rows: [PostgresRow]
        do {
            rows = try session.queryCommitting(statement, folding: folding)
        } catch let doubt as PostgresCommitInDoubt {
            return try settle(doubt, token: token, inserted: inserted)
        }
        guard let id = rows.first.map({ PostgresRowReader($0)._int64(0) }) else {
            throw SwiftDataError(.storeFailure, reason: "PostgreSQL recorded no history transaction. Nothing was saved.")
        }
        return id
    }

    /// The arguments of a history record, in the order ``recordSQL(namespace:channel:after:)``
    /// takes them: timestamp, author, bundle, process (this process's), origin, changes, token.
    static func recordArguments(timestamp: Double, author: String?, origin: Int64, changes: ByteBuffer, token: Int64) -> [PostgresData] {
        let identity = HistoryLog.processIdentity
        return [
            PostgresData(double: timestamp),
            author.map { PostgresData(string: $0) } ?? .null,
            PostgresData(string: identity.bundle),
            PostgresData(string: identity.process),
            PostgresData(int64: origin),
            PostgresData(type: .bytea, value: changes),
            PostgresData(int64: token),
        ]
    }

    /// The statement that records a history transaction (parameters: timestamp, author, bundle,
    /// process, origin, changes, token) and announces it; with `write`, a statement run first in the
    /// same statement (a data-modifying `WITH`), whose parameters come first.
    ///
    /// The counter row is locked last, as in a save of several statements: the counter's `UPDATE`
    /// waits, through its condition, until the write has run to completion (PostgreSQL runs the
    /// parts of a `WITH` in no set order otherwise). Saves then lock rows first and the counter
    /// after, whatever their shape, so a one-statement save cannot deadlock with another save
    /// that holds a row it writes and waits for the counter.
    static func recordSQL(namespace: String, channel: String, after write: (sql: String, parameters: Int)? = nil) -> String {
        let first = (write?.parameters ?? 0) + 1
        let leading = write.map { "osd_write AS (\($0.sql) RETURNING 1),\n" } ?? ""
        let afterWrite = write == nil ? "" : " AND (SELECT count(*) FROM osd_write) >= 0"
        let parameters = ["float8", "text", "text", "text", "int8", "bytea", "int8"].enumerated().map { "$\(first + $0)::\($1)" }
        return """
            WITH \(leading)next AS (
                UPDATE \(namespace).osd_metadata SET value = (value::int8 + 1)::text
                WHERE key = 'historyNext'\(afterWrite) RETURNING value::int8 AS id
            )
            INSERT INTO \(namespace).osd_history (id, timestamp, author, bundle, process, origin, changes, token)
            SELECT next.id, \(parameters.joined(separator: ", ")) FROM next
            RETURNING id, pg_notify(\(PostgresSQL.literal(channel)), '')
            """
    }

    func historyTransactions(after id: Int64) throws -> [StoreHistoryTransaction] {
        try historyTransactions(after: id, pageRows: Self.historyPageRows)
    }

    /// How many history transactions one statement of ``historyTransactions(after:)`` reads.
    ///
    /// The limit is a number in the text so that PostgreSQL reads the transactions through the
    /// key's index whatever it knows of the table: for `id > $1` alone on a history table it has
    /// no statistics of yet, it guesses a third of the rows and reads and sorts the whole table:
    /// 12.8 ms for the last 10 of 200,000 transactions, 0.05 ms with the limit.
    static let historyPageRows = 1_000

    /// ``historyTransactions(after:)``, read `pageRows` at a time, each page after the last
    /// transaction of the one before. Transactions commit in the order of their numbers (a save
    /// holds the counter's row from taking its number until it commits), so a page read later
    /// than the one before skips none.
    func historyTransactions(after id: Int64, pageRows: Int) throws -> [StoreHistoryTransaction] {
        let limit = max(pageRows, 1)
        var transactions: [StoreHistoryTransaction] = []
        var after = id
        while true {
            var bindings = PostgresBindings()
            bindings.append(after)
            let rows = try read("SELECT \(StoreHistoryTransaction.rowColumns) FROM \(namespace).osd_history WHERE id > $1 ORDER BY id LIMIT \(limit)", bindings)
            for row in rows { transactions.append(try StoreHistoryTransaction(row: PostgresRowReader(row), place: location.displayName)) }
            guard rows.count >= limit, let last = transactions.last else { return transactions }
            after = last.id
        }
    }

    func latestHistoryTransaction() throws -> Int64 {
        let rows = try read("SELECT coalesce(max(id), 0) FROM \(namespace).osd_history", PostgresBindings())
        return rows.first.map { PostgresRowReader($0)._int64(0) } ?? 0
    }

    func deleteHistory(transactions ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try transaction { session in
            try lockHistory(on: session)
            var bindings = PostgresBindings()
            bindings.append(ids)
            try session.query("DELETE FROM \(namespace).osd_history WHERE id = ANY($1::int8[])", bindings)
            try markHistoryDeleted(through: ids.max() ?? 0, on: session)
        }
    }

    func historyDeletedThrough() throws -> Int64 {
        let rows = try read("SELECT value::int8 FROM \(namespace).osd_metadata WHERE key = 'historyDeletedThrough'", PostgresBindings())
        return rows.first.map { PostgresRowReader($0)._int64(0) } ?? 0
    }

    /// Takes the history's counter row until the transaction ends, so that no save records a
    /// transaction meanwhile.
    func lockHistory(on session: PostgresSession) throws {
        try session.execute("UPDATE \(namespace).osd_metadata SET value = value WHERE key = 'historyNext'")
    }

    /// Records that history up to a transaction was deleted, keeping the highest mark.
    func markHistoryDeleted(through id: Int64, on session: PostgresSession) throws {
        var bindings = PostgresBindings()
        bindings.append(String(id))
        try session.query("UPDATE \(namespace).osd_metadata SET value = greatest(value::int8, $1::int8)::text WHERE key = 'historyDeletedThrough'", bindings)
    }

    /// Deletes the rows of a table that a condition on `t0` selects. Returns their keys, in the
    /// order the server deleted them, and, when `preserving`, the values the entity keeps in the
    /// history on deletion (`.preserveValueOnDeletion`), as the `DELETE` itself read them: a row
    /// another connection changed or inserted meanwhile is recorded with the values it went with.
    func deleteRows(
        _ table: PostgresTable, where condition: String, _ bindings: PostgresBindings, preserving: Bool, on session: PostgresSession
    ) throws -> (keys: [Int64], preserved: [Int64: [String: SnapshotValue]]) {
        let delete = "DELETE FROM \(table.table) AS t0 WHERE \(condition) RETURNING \(PostgresSQL.primaryKey) AS k"
        let attributes = preserving ? Self.preservedAttributes(of: table) : []
        guard !attributes.isEmpty else {
            // Only the keys: one array, not a row per deleted row.
            return (try session.returnedKeys(delete, bindings), [:])
        }
        let columns = attributes.enumerated().map { (attribute: $1, position: $0 + 1) }
        let rows = try session.query(delete + ", " + attributes.map(table.column).joined(separator: ", "), bindings)
        var keys: [Int64] = []
        keys.reserveCapacity(rows.count)
        var preserved: [Int64: [String: SnapshotValue]] = [:]
        for row in rows {
            let reader = PostgresRowReader(row)
            keys.append(reader._int64(0))
            preserved[reader._int64(0)] = try Self.preservedValues(of: table.entity, from: reader, at: columns)
        }
        return (keys, preserved)
    }

    /// The attributes of a table kept in the history when its rows are deleted.
    static func preservedAttributes(of table: PostgresTable) -> [Int] {
        table.entity.fields.indices.filter { index in
            table.columns[index] != nil && table.entity.fields[index].attribute?.options.contains(.preserveValueOnDeletion) == true
        }
    }

    /// The values a deletion keeps in the history, from a row that returned each attribute at
    /// its position.
    static func preservedValues(of entity: Schema.Entity, from reader: PostgresRowReader, at columns: [(attribute: Int, position: Int)]) throws -> [String: SnapshotValue] {
        var values: [String: SnapshotValue] = [:]
        for (attribute, position) in columns {
            let field = entity.fields[attribute]
            values[field.name] = try field.storage.map { try SnapshotValue(reader, column: Int32(position), storage: $0) } ?? .null
        }
        return values
    }
}
