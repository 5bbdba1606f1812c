/// Keys are never handed out twice, as in SwiftData: a `PersistentIdentifier` names one model for
/// the store's whole life, also after the model was deleted.
///
/// SQLite gives a new row the largest key in its table plus one, so deleting the newest rows would
/// let the next insert take a deleted row's key. Each save that deletes rows records, per table,
/// the largest key it deleted (`osd_key_floors`); the first row a later save inserts into the
/// table, if SQLite gave it a key at or below that floor, moves above it, and the rows after it
/// follow. (A class hierarchy's tables take their keys from an AUTOINCREMENT table instead.)
extension SQLiteStore {
    /// The table of floors; created with the store, and on opening a store from before it.
    static let keyFloorsTable =
        "CREATE TABLE IF NOT EXISTS osd_key_floors (table_name TEXT PRIMARY KEY, floor INTEGER NOT NULL) STRICT, WITHOUT ROWID"

    /// Records that keys up to `key` were used in the table of `layout`.
    static func raiseKeyFloor(of layout: TableLayout, to key: Int64, on connection: SQLiteConnection) throws {
        connection.knownKeyFloors.forget(layout.entity.name)
        let upsert = try connection.statement(
            "INSERT INTO osd_key_floors (table_name, floor) VALUES (?, ?) ON CONFLICT (table_name) DO UPDATE SET floor = max(floor, excluded.floor)")
        defer { upsert.reset() }
        try upsert.bind([.text(layout.entity.name), .integer(key)])
        try upsert.run()
    }

    /// The key for the row just inserted into the table of `layout` with `key`: `key` itself, or,
    /// when a deletion freed keys at or above it, one above them all (the row is moved there).
    static func keyAboveFloor(of layout: TableLayout, inserted key: Int64, on connection: SQLiteConnection) throws -> Int64 {
        guard let floor = try keyFloor(of: layout, on: connection), floor >= key else { return key }
        // A floor another program set to the largest key leaves no key above it.
        let (moved, overflow) = floor.addingReportingOverflow(1)
        guard !overflow else {
            throw SwiftDataError(.storeFailure, reason: "Every key of the \(layout.entity.name) table has been used (osd_key_floors records \(Int64.max)): a new \(layout.entity.name) cannot be saved without reusing a deleted model's identifier")
        }
        let move = try connection.statement("UPDATE \(layout.table) SET \(TableLayout.primaryKey) = ? WHERE \(TableLayout.primaryKey) = ?")
        defer { move.reset() }
        try move._bind(moved, 0)
        try move._bind(key, 1)
        try move.run()
        return moved
    }

    /// The largest key recorded as used in the table of `layout`, `nil` when none is; read once
    /// while the database does not change (``KnownKeyFloors``).
    static func keyFloor(of layout: TableLayout, on connection: SQLiteConnection) throws -> Int64? {
        let table = layout.entity.name
        if let known = connection.knownKeyFloors[table] { return known.floor }
        let select = try connection.statement(.keyFloor)
        defer { select.reset() }
        try select._bind(table, 0)
        let floor = try select.step() ? select._int64(0) : nil
        connection.knownKeyFloors.note(floor, of: table, at: connection.dataVersion)
        return floor
    }
}
