/// The property lists the history's update masks refer to (``HistoryFieldLayouts``), in
/// `osd_metadata`.
extension SQLiteStore {
    /// Records the entities' property lists as those of the transactions to come when they differ
    /// from the lists recorded last: when the store is opened for saving. Opening with the lists
    /// recorded last (every open but the first after a migration) only reads the record; a change
    /// is written in one transaction, which looks at the record again.
    static func recordHistoryFields(_ connection: SQLiteConnection, entities: [Schema.Entity], path: String) throws {
        let current = HistoryFieldLayouts.fields(of: entities)
        guard try historyFields(connection, path: path).layouts.last?.entities != current else { return }
        try connection.writeTransaction {
            var record = try historyFields(connection, path: path)
            let next = (try connection.integer("SELECT coalesce(max(id), 0) + 1 FROM osd_history")) ?? 1
            guard record.record(current, from: next) else { return }
            let statement = try connection.uncachedStatement("INSERT OR REPLACE INTO osd_metadata (key, value) VALUES (?, ?)")
            try statement.bind([.text(HistoryFieldLayouts.metadataKey), .text(try record.json())])
            try statement.run()
        }
    }

    /// The recorded property lists; none in a store from before they were recorded.
    static func historyFields(_ connection: SQLiteConnection, path: String) throws -> HistoryFieldLayouts {
        let json: String
        do {
            let statement = try connection.uncachedStatement("SELECT value FROM osd_metadata WHERE key = ?")
            try statement.bind([.text(HistoryFieldLayouts.metadataKey)])
            guard try statement.step() else { return HistoryFieldLayouts() }
            json = statement._string(0)
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Reading the history's property lists in \(path)")
        }
        return try HistoryFieldLayouts(json: json, place: path)
    }
}
