import Foundation
import OpenSwiftDataPostgres

/// What a command's STORE argument names: a store file, or a PostgreSQL server's URL.
package enum StoreArgument {
    /// The PostgreSQL store `store` names (the configuration named `name` on that server), read;
    /// `nil` when `store` names a file.
    package static func postgresStore(_ store: String, name: String) throws -> PostgresStoreSummary? {
        guard PostgresStoreSummary.isPostgresURL(store) else { return nil }
        guard let url = URL(string: store) else { throw ToolError("\(store) is not a URL.") }
        return try PostgresStoreSummary(url: url, name: name)
    }

    /// Throws unless `store` names a file: `command` works on SQLite stores only.
    package static func requireFile(_ store: String, for command: String) throws {
        guard PostgresStoreSummary.isPostgresURL(store) else { return }
        throw ToolError("osd \(command) works on store files. On PostgreSQL, osd inspect, schema, diagram, export and import work (--name names the configuration), and psql reads the tables (docs/StorageLayout.md).")
    }
}
