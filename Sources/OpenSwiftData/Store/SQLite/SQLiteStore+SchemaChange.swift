import CSQLite
import Foundation

extension SQLiteStore {
    /// The public error for an SQLite failure on this store.
    ///
    /// A statement that names a table or column the file no longer has is, most often, the work
    /// of another container that migrated the store while this one had it open: the store's
    /// schema record then differs from this container's models, and the error is
    /// ``SwiftDataError/schemaMismatch`` naming both versions and what changed
    /// (``StoredSchema/migratedWhileOpen(models:place:cause:)``), instead of SQLite's message about
    /// one column. With the record unchanged, SQLite's error stands (a table
    /// another program removed is ``SwiftDataError/storeIsCorrupt``).
    func swiftDataError(for failure: SQLiteError, on connection: SQLiteConnection) -> SwiftDataError {
        let message = failure.message
        guard failure.code & 0xFF == SQLITE_ERROR,
              message.hasPrefix("no such table: ") || message.hasPrefix("no such column: ") || message.contains(" has no column named ")
        else { return failure.swiftDataError }
        let recorded: StoredSchema
        do {
            let statement = try connection.uncachedStatement("SELECT value FROM osd_metadata WHERE key = 'schema'")
            guard try statement.step() else { return failure.swiftDataError }
            recorded = try JSONDecoder().decode(StoredSchema.self, from: Data(statement._string(0).utf8))
        } catch {
            // No readable record to compare with: SQLite's own error is the one to report.
            return failure.swiftDataError
        }
        return recorded.migratedWhileOpen(models: StoredSchema(schema), place: path, cause: "\(failure)") ?? failure.swiftDataError
    }
}
