import Foundation

/// The copy of a store file taken before a planned migration, and put back if a stage fails.
enum StoreFileBackup {
    /// Checkpoints the WAL into the store file, then copies the file to `backup`.
    static func make(of url: URL, at backup: URL) throws {
        do {
            let connection = try SQLiteConnection(path: url.path, readOnly: false, create: false)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Preparing to migrate \(url.path)")
        }
        try? FileManager.default.removeItem(at: backup)
        try FileManager.default.copyItem(at: url, to: backup)
    }

    /// Replaces the store file (and its WAL) with the copy.
    static func restore(_ url: URL, from backup: URL) throws {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: backup, to: url)
    }
}
