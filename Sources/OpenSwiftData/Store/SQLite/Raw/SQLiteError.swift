import CSQLite

/// An SQLite result code with the message and the statement that produced it.
struct SQLiteError: StoreReportedError, CustomStringConvertible {
    /// SQLite's (extended) result code.
    let code: Int32
    /// SQLite's message.
    let message: String
    /// The statement that failed, if any.
    let sql: String?

    var description: String {
        var text = "SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))): \(message)"
        if let sql { text += " — in: \(sql)" }
        return text
    }

    /// The public error for this SQLite failure.
    var swiftDataError: SwiftDataError {
        switch code & 0xFF {
        case SQLITE_NOTADB: SwiftDataError(.storeIsNotSQLite, reason: description)
        case SQLITE_CORRUPT: SwiftDataError(.storeIsCorrupt, reason: description)
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM: SwiftDataError(.storeIsReadOnly, reason: description)
        case SQLITE_BUSY, SQLITE_LOCKED: SwiftDataError(.storeIsBusy, reason: description)
        case SQLITE_ERROR where message.hasPrefix("no such table: "):
            SwiftDataError(.storeIsCorrupt, reason: "The store lacks the table \(message.dropFirst("no such table: ".count)): another program removed it while the store was open. \(description)")
        case SQLITE_CONSTRAINT where code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (10 << 8):
            SwiftDataError(.uniquenessConflict, reason: description)
        default: SwiftDataError(.storeFailure, reason: description)
        }
    }
}
