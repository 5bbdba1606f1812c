import Foundation
import OpenSwiftData
import PostgresNIO

/// A PostgreSQL store opened without its model classes, from the schema its namespace records:
/// what `osd` reads, exports and imports through. The PostgreSQL counterpart of `StoreFile`.
///
/// Opened for reading, everything it reads comes from one read-only transaction, so counts and
/// rows agree with each other, and nothing is changed. Opened for writing, it writes only inside
/// ``transaction(_:)``, all or nothing. Opening throws a ``SwiftDataError`` saying what is wrong: no
/// such namespace, not an OpenSwiftData store, written by a newer version, an unreadable schema
/// record.
package final class PostgresStoreAccess {
    /// The server, database and namespace, without the password.
    package let displayName: String
    /// The PostgreSQL schema (namespace) that holds the store's tables.
    package let namespace: String
    /// The schema the store records.
    package let schema: StoredSchema
    /// The store's format number.
    package let format: Int64
    /// The store's identifier, as persistent identifiers name it.
    package let identifier: String?
    /// Whether the store was opened for writing (otherwise everything is read in one read-only
    /// transaction).
    package let isWritable: Bool
    /// The connection every statement runs on.
    let session: PostgresSession
    /// The namespace, quoted for SQL.
    let quotedNamespace: String
    /// The `osd_metadata` rows as the store was opened.
    let metadata: [String: String]
    /// The token of the history record the open transaction wrote, by which the server is asked
    /// whether it kept the transaction when the reply to its commit is lost.
    var recordedToken: Int64?

    /// How many rows one read or one `INSERT` holds.
    package static let batchRows = 1_000

    /// Opens the store of the configuration named `name` at `url`, for reading or for writing.
    package convenience init(url: URL, name: String, writable: Bool = false) throws {
        try self.init(location: PostgresLocation(PostgresStoreConfiguration(name: name, url: url, allowsSave: writable, maximumReadConnections: 0)), writable: writable)
    }

    /// Opens the store at `location`, on a connection of its own, for reading or for writing.
    init(location: PostgresLocation, writable: Bool) throws {
        displayName = location.displayName
        isWritable = writable
        namespace = location.namespace
        quotedNamespace = PostgresSQL.quote(location.namespace)
        session = try PostgresSession(location)
        do {
            if !writable { try session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
            guard let metadata = try PostgresBackend.recordedMetadata(session, location: location) else {
                throw SwiftDataError(.storeIsReadOnly, reason: "There is no store at \(location.displayName): the database has no PostgreSQL schema \(location.namespace). Name the configuration with --name; a store is created by opening it with the app's models.")
            }
            self.metadata = metadata
            format = metadata["format"].flatMap { Int64($0) } ?? 0
            guard format <= PostgresBackend.formatVersion else {
                throw SwiftDataError(.storeFromNewerVersion, reason: "\(location.displayName) has format \(format); this version of OpenSwiftData reads up to \(PostgresBackend.formatVersion).")
            }
            schema = try PostgresBackend.recordedSchema(metadata, location: location)
            identifier = metadata["identifier"]
        } catch {
            // Closing the connection ends a read-only transaction: nothing to commit or roll back.
            session.close()
            throw error
        }
    }

    deinit {
        session.close()
    }

    /// The quoted, qualified name of a table of the namespace.
    package func table(_ name: String) -> String { "\(quotedNamespace).\(PostgresSQL.quote(name))" }

    /// The first column of each row a statement returns, as an integer.
    package func integers(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> [Int64] {
        try session.query(sql, bindings).map { PostgresRowReader($0)._int64(0) }
    }

    /// The number of rows of the table of the model named `entity`.
    package func count(_ entity: String) throws -> Int64 {
        try integers("SELECT count(*) FROM \(table(entity))").first ?? 0
    }

    /// How many history transactions the store keeps.
    package func historyTransactionCount() throws -> Int64 {
        try integers("SELECT count(*) FROM \(quotedNamespace).osd_history").first ?? 0
    }

    /// The bytes the namespace's tables take on the server, with their indexes and TOAST.
    package func size() throws -> Int64 {
        var bindings = PostgresBindings()
        bindings.append(namespace)
        return try integers("""
            SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8 FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'
            """, bindings).first ?? 0
    }

    /// Every column of the namespace's tables: table, column and PostgreSQL type name
    /// (`information_schema`'s `data_type`, such as `bigint`).
    package func columns() throws -> [(table: String, column: String, type: String)] {
        var bindings = PostgresBindings()
        bindings.append(namespace)
        return try session.query("SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = $1", bindings).map { row in
            let reader = PostgresRowReader(row)
            return (reader._string(0), reader._string(1), reader._string(2))
        }
    }

    /// The type name (as ``columns()`` gives it) of the column of a storage class.
    package static func columnType(_ storage: StorageClass) -> String {
        switch storage {
        case .integer, .unsignedInteger: "bigint"
        case .real, .date: "double precision"
        case .text, .json: "text"
        case .blob, .uuid, .decimal: "bytea"
        }
    }

    /// The last key the sequence of the class hierarchy rooted at `root` handed out (0 before
    /// the first), or `nil` when the sequence is missing.
    package func lastKey(root: String) throws -> Int64? {
        var bindings = PostgresBindings()
        bindings.append(namespace)
        bindings.append("osd_keys_\(root)")
        let exists = try integers("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind = 'S'", bindings).first ?? 0
        guard exists > 0, let state = try session.query("SELECT last_value, is_called FROM \(keySequence(root: root))").first.map(PostgresRowReader.init) else { return nil }
        // A sequence another program restarted at the smallest value has handed out none below it.
        return state._int64(1) != 0 ? state._int64(0) : max(state._int64(0), .min + 1) - 1
    }

    /// The history counter (the last number handed out) and the highest number in the history.
    package func historyCounter() throws -> (counter: Int64, highest: Int64)? {
        guard let counter = try metadataValue("historyNext") else { return nil }
        return (counter, try integers("SELECT coalesce(max(id), 0) FROM \(quotedNamespace).osd_history").first ?? 0)
    }

    /// A number recorded in `osd_metadata`, read now.
    private func metadataValue(_ key: String) throws -> Int64? {
        var bindings = PostgresBindings()
        bindings.append(key)
        guard let row = try session.query("SELECT value FROM \(quotedNamespace).osd_metadata WHERE key = $1", bindings).first else { return nil }
        return Int64(PostgresRowReader(row)._string(0))
    }
}
