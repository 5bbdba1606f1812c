/// Changes to how values are stored, made once to a store written before them, when it is next
/// opened for saving. Each is recorded in `osd_metadata`, so that it runs once.
extension SQLiteStore {
    /// The metadata of the stores each upgrade has been made to (and of every new store).
    static let upgradesDone: [(key: String, value: String)] = [("decimalNaN", "first")]

    /// Makes the upgrades the store lacks, in one transaction: a `Decimal` NaN sorts first
    /// (``OrderedDecimalCoding``): every stored NaN is rewritten from its old bytes.
    static func upgrade(_ connection: SQLiteConnection, layouts: [String: TableLayout]) throws {
        let done = try connection.uncachedStatement("SELECT count(*) FROM osd_metadata WHERE key = 'decimalNaN' AND value = 'first'")
        guard try done.step(), done._int64(0) == 0 else { return }
        done.reset()
        try connection.execute("BEGIN IMMEDIATE")
        do {
            for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
                for (index, field) in layout.entity.fields.enumerated() where field.storage == .decimal {
                    guard let column = layout.columns[index] else { continue }
                    // X'03' is OrderedDecimalCoding.legacyNaN.
                    try connection.execute("UPDATE \(layout.table) SET \(column) = X'00' WHERE \(column) = X'03'")
                }
            }
            try connection.execute("INSERT OR REPLACE INTO osd_metadata (key, value) VALUES ('decimalNaN', 'first')")
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
