/// The statements every save or look runs, held by each connection in slots of their own so that
/// running one costs no cache lookup.
///
/// A connection hands one out with the bindings of its last use: each use binds every parameter
/// of its SQL.
enum FixedStatement: Int, CaseIterable {
    case beginImmediate
    case commit
    case dataVersion
    case recordHistory
    case keyFloor

    /// The statement's SQL.
    var sql: String {
        switch self {
        case .beginImmediate: "BEGIN IMMEDIATE"
        case .commit: "COMMIT"
        case .dataVersion: "PRAGMA data_version"
        case .recordHistory:
            // The process's identity is the same in every transaction it records: part of the text
            // (it holds no NUL, ``HistoryLog/processIdentity``).
            "INSERT INTO osd_history (timestamp, author, bundle, process, origin, changes) VALUES (?, ?, "
                + SQL.literal(HistoryLog.processIdentity.bundle) + ", " + SQL.literal(HistoryLog.processIdentity.process) + ", ?, ?)"
        case .keyFloor: "SELECT floor FROM osd_key_floors WHERE table_name = ?"
        }
    }
}
