/// The SQLite store's ``CompanionRecord``s: the table `osd_companion`, made on the first write.
extension SQLiteStore: CompanionRecordStore {
    func companionRecord(domain: String, key: String) throws -> [UInt8]? {
        var found: [UInt8]?
        try forEachCompanion("SELECT key, value FROM osd_companion WHERE domain = ? AND key = ?", [.text(domain), .text(key)]) { _, value in
            found = value
        }
        return found
    }

    func companionRecords(domain: String, keys: [String]) throws -> [String: [UInt8]] {
        try withConnection { connection in
            guard try hasCompanionTable(connection) else { return [:] }
            return try connection.companionRecords(domain: domain, keys: keys)
        }
    }

    func forEachCompanionRecord(domain: String, keyPrefix: String, _ body: (String, [UInt8]) throws -> Void) throws {
        // Keys from the prefix up to the prefix followed by the largest character.
        try forEachCompanion(
            "SELECT key, value FROM osd_companion WHERE domain = ? AND key >= ? AND key < ? ORDER BY key",
            [.text(domain), .text(keyPrefix), .text(keyPrefix + "\u{10FFFF}")], body)
    }

    func writeCompanionRecords(_ records: [CompanionRecord]) throws {
        guard !records.isEmpty else { return }
        guard !isReadOnly else {
            throw SwiftDataError(.storeIsReadOnly, reason: "The store at \(path) is read-only.")
        }
        try withConnection { connection in
            try connection.writeTransaction { try writeCompanionRecords(records, on: connection) }
        }
    }

    /// Writes records inside the caller's transaction.
    func writeCompanionRecords(_ records: [CompanionRecord], on connection: SQLiteConnection) throws {
        try connection.writeCompanionRecords(records)
    }

    private func forEachCompanion(_ sql: String, _ arguments: [StoredValue], _ body: (String, [UInt8]) throws -> Void) throws {
        try withConnection { connection in
            guard try hasCompanionTable(connection) else { return }
            try connection.forEachCompanionRecord(sql, arguments, body)
        }
    }

    /// Whether the table exists: it is made by the first write, and until then there is nothing
    /// to read. Once seen, it is not looked up again.
    private func hasCompanionTable(_ connection: SQLiteConnection) throws -> Bool {
        if companionTableExists.load() { return true }
        guard try connection.hasCompanionTable() else { return false }
        companionTableExists.store(true)
        return true
    }
}
