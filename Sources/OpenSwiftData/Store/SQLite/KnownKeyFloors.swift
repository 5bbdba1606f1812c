/// The key floors (``SQLiteStore/keyAboveFloor(of:inserted:on:)``) a connection has read, kept
/// while its database has not changed since, so that a save's first insert into a table does not
/// look its floor up again.
///
/// What is known is tied to the database's data version (``SQLiteConnection/dataVersion``): a
/// save begins by checking it (``begin(at:)``: another connection's commit, or anything else that
/// moved it, forgets everything) and, once committed, takes the version its own commit made
/// (``committed(at:)``). While nothing is known neither reads the version: the first floor noted
/// reads it then (``note(_:of:at:)``), which is the version the transaction began at, since
/// nothing else can commit while the save holds the write lock and its own writes move the version
/// only as they commit. A floor this connection raises is forgotten at once (``forget(_:)``), so
/// that a rolled-back raise is not remembered, and a rolled-back save forgets everything
/// (``forgetAll()``). Forgetting is always safe: the floor is read again.
struct KnownKeyFloors {
    /// A table's floor, `nil` when its table has none.
    struct Known {
        var floor: Int64?
    }

    /// The data version the floors were read at or kept through; `nil` when nothing is known.
    private var dataVersion: UInt32?
    /// By table name, in the order read: a store's saves insert into few of its tables, and a
    /// name compared with itself is equal at once.
    private var floors: [(table: String, known: Known)] = []

    /// The floor of the table named `table`, if known.
    subscript(table: String) -> Known? {
        guard dataVersion != nil else { return nil }
        return floors.first { $0.table == table }?.known
    }

    /// Checks what is known against the version a save's transaction began at, read only when
    /// something is known.
    mutating func begin(at version: @autoclosure () -> UInt32?) {
        guard dataVersion != nil else { return }
        let version = version()
        guard version == nil || version != dataVersion else { return }
        forgetAll()
        dataVersion = version
    }

    /// Records the floor of `table` read in the current transaction; `version`, the data version
    /// now, is read when nothing was known as the transaction began.
    mutating func note(_ floor: Int64?, of table: String, at version: @autoclosure () -> UInt32?) {
        if dataVersion == nil { dataVersion = version() }
        guard dataVersion != nil else { return }
        forget(table)
        floors.append((table, Known(floor: floor)))
    }

    /// Forgets the floor of `table`, which this connection is raising.
    mutating func forget(_ table: String) {
        floors.removeAll { $0.table == table }
    }

    /// Keeps what is known through the commit of the save that checked it at ``begin(at:)``; reads
    /// `version`, the data version the commit made, only when something is known.
    mutating func committed(at version: @autoclosure () -> UInt32?) {
        guard dataVersion != nil else { return }
        guard let version = version() else { return forgetAll() }
        dataVersion = version
    }

    /// Forgets every floor.
    mutating func forgetAll() {
        dataVersion = nil
        if !floors.isEmpty { floors.removeAll(keepingCapacity: true) }
    }
}
