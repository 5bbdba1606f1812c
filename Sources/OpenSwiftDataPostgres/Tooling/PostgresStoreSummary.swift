import Foundation
import OpenSwiftData
import PostgresNIO

/// A PostgreSQL store read without its model classes, from the schema its namespace records: what
/// `osd inspect` and `osd schema` show.
///
/// Reading changes nothing: it runs in one read-only transaction, so the counts agree with each
/// other. A namespace that is missing, is not an OpenSwiftData store, was written by a newer
/// version, or has an unreadable schema record throws a ``SwiftDataError`` saying which.
package struct PostgresStoreSummary: Sendable {
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
    /// How many history transactions the store keeps.
    package let historyTransactions: Int64
    /// The number of rows of each model's table, by model name.
    package let rows: [String: Int64]
    /// The bytes the namespace's tables take on the server, with their indexes and TOAST.
    package let bytes: Int64

    /// Reads the store of the configuration named `name` at `url`.
    package init(url: URL, name: String) throws {
        let location = try PostgresLocation(PostgresStoreConfiguration(name: name, url: url, allowsSave: false, maximumReadConnections: 0))
        displayName = location.displayName
        namespace = location.namespace
        let session = try PostgresSession(location)
        // Closing the connection ends the read-only transaction: nothing to commit or roll back.
        defer { session.close() }
        try session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        guard let metadata = try PostgresBackend.recordedMetadata(session, location: location) else {
            throw SwiftDataError(.storeIsReadOnly, reason: "There is no store at \(location.displayName): the database has no PostgreSQL schema \(location.namespace). Name the configuration with --name.")
        }
        format = metadata["format"].flatMap { Int64($0) } ?? 0
        guard format <= PostgresBackend.formatVersion else {
            throw SwiftDataError(.storeFromNewerVersion, reason: "\(location.displayName) has format \(format); this version of OpenSwiftData reads up to \(PostgresBackend.formatVersion).")
        }
        schema = try PostgresBackend.recordedSchema(metadata, location: location)
        identifier = metadata["identifier"]
        let quoted = PostgresSQL.quote(location.namespace)
        func count(_ table: String) throws -> Int64 {
            try session.query("SELECT count(*) FROM \(quoted).\(table)").first.map { PostgresRowReader($0)._int64(0) } ?? 0
        }
        historyTransactions = try count("osd_history")
        rows = try Dictionary(schema.entities.map { ($0.name, try count(PostgresSQL.quote($0.name))) }, uniquingKeysWith: { first, _ in first })
        var bindings = PostgresBindings()
        bindings.append(location.namespace)
        bytes = try session.query("""
            SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8 FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'
            """, bindings).first.map { PostgresRowReader($0)._int64(0) } ?? 0
    }

    /// Whether `text` names a PostgreSQL server (`postgres://` or `postgresql://`) rather than a file.
    package static func isPostgresURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }
}
