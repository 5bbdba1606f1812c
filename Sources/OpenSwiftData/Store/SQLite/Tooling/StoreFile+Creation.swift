import Foundation

/// A store file the tools create from a schema record alone, with no model classes: the store
/// the app's models (those `osd generate models` writes for that record) open as their own.
extension StoreFile {
    package static func isVacant(_ location: String, name: String) -> Bool {
        !FileManager.default.fileExists(atPath: location)
    }

    package static func creatingStore<R>(at location: String, name: String, schema: StoredSchema, _ body: (any StoreTooling) throws -> R) throws -> R {
        let path = location
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Made here and only here: a file that appears meanwhile (another process creating a
        // store) is never taken over, nor removed below.
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "there is already a file there; a new store is created only where there is nothing" : String(cString: strerror(errno))
            throw SwiftDataError(.storeIsReadOnly, reason: "A store cannot be created at \(path): \(reason). Nothing was changed.")
        }
        close(descriptor)
        do {
            try create(at: path, schema: schema)
            return try body(try StoreFile(path: path, writable: true))
        } catch {
            // The store is this call's own and holds nothing that was kept: remove it whole.
            for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
                do {
                    try FileManager.default.removeItem(atPath: path + suffix)
                } catch let removal {
                    throw SwiftDataError(.storeFailure, reason: "\(error) Removing the store created for it at \(path) failed too (\(removal)); delete \(path)\(suffix) before trying again.")
                }
            }
            throw error
        }
    }

    /// Creates the store file at `path`: its tables from `schema`, and its records.
    private static func create(at path: String, schema: StoredSchema) throws {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false, create: true)
            try connection.execute(SQLiteStore.pragmas)
            let tables = schema.entities.map { SQLiteTableDDL(TableDefinition($0, in: schema)) }
            try SQLiteStore.initialize(connection, tables: tables, schema: schema, identifier: UUID().uuidString, historyFields: nil)
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Creating the store at \(path)")
        }
    }
}
