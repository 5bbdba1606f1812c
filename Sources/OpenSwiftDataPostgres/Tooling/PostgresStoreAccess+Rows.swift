import OpenSwiftData
import PostgresNIO

/// Reading a PostgreSQL store's rows without its model classes, as the stored values the SQLite
/// store's tools read (the rows themselves: ``forEachRow(of:columns:filter:sort:limit:offset:_:)``).
extension PostgresStoreAccess {
    /// The pairs of a link table whose `from` column (`owner` or `target`) is one of `keys`: the
    /// other column's keys by `from` key, in ascending order.
    package func links(_ linkTable: String, from: String, to: String, among keys: [Int64]) throws -> [Int64: [Int64]] {
        var bindings = PostgresBindings()
        bindings.append(keys)
        let rows = try session.query("SELECT \(from), \(to) FROM \(table(linkTable)) WHERE \(from) = ANY($1::int8[]) ORDER BY \(from), \(to)", bindings)
        var pairs: [Int64: [Int64]] = [:]
        for row in rows {
            let reader = PostgresRowReader(row)
            pairs[reader._int64(0), default: []].append(reader._int64(1))
        }
        return pairs
    }
}
extension PostgresRowReader {
    /// A column's value in the SQLite store's terms: integers (and Booleans) `.integer`, floating
    /// point `.real`, text `.text`, bytes `.blob`, NULL `.null`.
    func storedValue(_ column: Int32) -> StoredValue {
        guard !_isNull(column) else { return .null }
        switch row[Int(column)].dataType {
        case .int8, .int4, .int2, .bool: return .integer(_int64(column))
        case .float8, .float4: return .real(_double(column))
        case .bytea: return .blob(_withBytes(column) { Array($0) })
        default: return .text(_string(column))
        }
    }
}
