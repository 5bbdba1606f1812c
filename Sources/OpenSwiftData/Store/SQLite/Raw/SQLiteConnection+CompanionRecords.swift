/// The table `osd_companion` that holds an SQLite store's ``CompanionRecord``s, made on the first
/// write: what the store (``SQLiteStore``) and its tooling (``StoreFile``) read and write.
extension SQLiteConnection {
    private static let createCompanionTable = """
        CREATE TABLE IF NOT EXISTS osd_companion (domain TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, \
        PRIMARY KEY (domain, key)) WITHOUT ROWID
        """

    /// Whether the file has the table yet.
    func hasCompanionTable() throws -> Bool {
        guard case .integer(1)? = try rows("SELECT count(*) FROM sqlite_master WHERE name = 'osd_companion'").first?.first else { return false }
        return true
    }

    /// Writes records inside the caller's transaction: a record without a value is removed.
    func writeCompanionRecords(_ records: [CompanionRecord]) throws {
        guard !records.isEmpty else { return }
        try execute(Self.createCompanionTable)
        let upsert = try statement("INSERT OR REPLACE INTO osd_companion (domain, key, value) VALUES (?, ?, ?)")
        let delete = try statement("DELETE FROM osd_companion WHERE domain = ? AND key = ?")
        for record in records {
            if let value = record.value {
                upsert.reset()
                try upsert.bind([.text(record.domain), .text(record.key), .blob(value)])
                try upsert.run()
            } else {
                delete.reset()
                try delete.bind([.text(record.domain), .text(record.key)])
                try delete.run()
            }
        }
    }

    /// Calls `body` with the key and value of each record the query (selecting `key, value` from
    /// `osd_companion`) returns. The caller checks that the table exists.
    func forEachCompanionRecord(_ sql: String, _ arguments: [StoredValue], _ body: (String, [UInt8]) throws -> Void) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {
            let key = statement._string(0)
            let value = statement._withBytes(1) { Array($0) }
            try body(key, value)
        }
    }

    /// The values of the records of a domain with the given keys, by key. The caller checks that
    /// the table exists.
    func companionRecords(domain: String, keys: [String]) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        found.reserveCapacity(keys.count)
        for key in keys {
            try forEachCompanionRecord("SELECT key, value FROM osd_companion WHERE domain = ? AND key = ?", [.text(domain), .text(key)]) { key, value in
                found[key] = value
            }
        }
        return found
    }
}
