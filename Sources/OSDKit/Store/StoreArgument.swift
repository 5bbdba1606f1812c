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
}
