/// Changes to how values are stored, made once to a store written before them, when it is next
/// opened for saving. Each is recorded in `osd_metadata`, so that it runs once.
extension SQLiteStore {
    /// One change: its record in `osd_metadata`, and what it does to the tables.
    struct Upgrade: Sendable {
        let key: String
        let value: String
        let run: @Sendable (SQLiteConnection, [String: TableLayout]) throws -> Void
    }

    /// Every upgrade; a new store is created with all of them recorded.
    static let upgrades: [Upgrade] = [
        // A `Decimal` NaN sorts first, as Foundation orders it (``OrderedDecimalCoding``): every
        // stored NaN is rewritten from its old bytes (X'03', `OrderedDecimalCoding.legacyNaN`).
        Upgrade(key: "decimalNaN", value: "first") { connection, layouts in
            for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
                for (index, field) in layout.entity.fields.enumerated() where field.storage == .decimal {
                    guard let column = layout.columns[index] else { continue }
                    try connection.execute("UPDATE \(layout.table) SET \(column) = X'00' WHERE \(column) = X'03'")
                }
            }
        },
        // A NaN in a unique floating-point property matches no other row, as `nil` does not
        // (``SQLiteTableDDL/uniqueIndexCondition(_:)``): those unique indexes are
        // made again, leaving NaN rows out.
        Upgrade(key: "uniqueNaN", value: "distinct") { connection, layouts in
            for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
                for number in layout.ddl.uniqueConstraintsWithFloatingPoint {
                    try connection.execute("DROP INDEX IF EXISTS \(SQL.quote("osd_unique_\(layout.entity.name)_\(number)"))")
                    try connection.execute(layout.ddl.uniqueIndexStatement(number))
                }
            }
        },
    ]

    /// Makes the upgrades the store lacks, in one transaction.
    static func upgrade(_ connection: SQLiteConnection, layouts: [String: TableLayout]) throws {
        let recorded = try connection.uncachedStatement("SELECT key, value FROM osd_metadata")
        var metadata: [String: String] = [:]
        while try recorded.step() { metadata[recorded._string(0)] = recorded._string(1) }
        recorded.reset()
        let missing = upgrades.filter { metadata[$0.key] != $0.value }
        guard !missing.isEmpty else { return }
        try connection.writeTransaction {
            for upgrade in missing {
                try upgrade.run(connection, layouts)
                let record = try connection.uncachedStatement("INSERT OR REPLACE INTO osd_metadata (key, value) VALUES (?, ?)")
                try record.bind([.text(upgrade.key), .text(upgrade.value)])
                try record.run()
            }
        }
    }
}
