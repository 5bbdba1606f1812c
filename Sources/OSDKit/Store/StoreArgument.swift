import Foundation
import OpenSwiftDataPostgres

/// What a command's STORE argument names: a store file, or a PostgreSQL server's URL.
package enum StoreArgument {
    /// The PostgreSQL store `store` names (the configuration named `name` on that server), read;
    /// `nil` when `store` names a file.
    package static func postgresStore(_ store: String, name: String) throws -> PostgresStoreSummary? {
        try postgresURL(store).map { try PostgresStoreSummary(url: $0, name: name) }
    }

    /// The PostgreSQL server's URL that `store` is, or `nil` when `store` names a file.
    static func postgresURL(_ store: String) throws -> URL? {
        guard PostgresStoreSummary.isPostgresURL(store) else { return nil }
        guard let url = URL(string: store) else { throw ToolError("\(store) is not a URL.") }
        return url
    }

    /// Throws unless `store` names a file: `command` works on SQLite stores only.
    package static func requireFile(_ store: String, for command: String) throws {
        guard PostgresStoreSummary.isPostgresURL(store) else { return }
        throw ToolError("osd \(command) works on store files. On PostgreSQL, every other osd command works (--name names the configuration), and psql reads the tables (docs/StorageLayout.md).")
    }
}
