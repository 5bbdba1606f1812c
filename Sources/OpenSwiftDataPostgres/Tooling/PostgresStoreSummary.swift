import Foundation
import OpenSwiftData

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
        let store = try PostgresStoreAccess(url: url, name: name)
        displayName = store.displayName
        namespace = store.namespace
        schema = store.schema
        format = store.format
        identifier = store.identifier
        historyTransactions = try store.historyTransactionCount()
        rows = try Dictionary(schema.entities.map { ($0.name, try store.count($0.name)) }, uniquingKeysWith: { first, _ in first })
        bytes = try store.size()
    }

    /// Whether `text` names a PostgreSQL server (`postgres://` or `postgresql://`) rather than a file.
    package static func isPostgresURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }
}
