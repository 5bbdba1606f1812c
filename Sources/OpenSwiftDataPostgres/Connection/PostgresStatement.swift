import PostgresNIO

/// A statement to run and its parameters: parsed and planned by the server each time, or
/// prepared once per connection and then only executed.
///
/// A prepared statement's parameter types are the ones PostgreSQL infers from its SQL (a column's
/// type, or a cast), so its arguments must have exactly those types; the store prepares only
/// fixed statements whose parameters are columns or casts.
enum PostgresStatement {
    /// SQL with parameters whose types the bindings give.
    case parsed(String, PostgresBindings)
    /// SQL prepared on first use, with its arguments.
    case prepared(String, [PostgresData])

    /// The statement's SQL.
    var sql: String {
        switch self {
        case .parsed(let sql, _), .prepared(let sql, _): sql
        }
    }

    /// How many parameters the statement sends.
    var bindingCount: Int {
        switch self {
        case .parsed(_, let bindings): bindings.count
        case .prepared(_, let arguments): arguments.count
        }
    }
}
