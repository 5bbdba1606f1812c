import OpenSwiftData
import PostgresNIO

/// Reading a PostgreSQL store's rows without its model classes, a thousand at a time, as the stored
/// values the SQLite store's tools read.
extension PostgresStoreAccess {
    /// Reads the rows of a model's table in key order, a thousand at a time: each row's key, then
    /// the given columns as stored values in the SQLite store's terms (a `Double` column as
    /// `.real`, text as `.text`, bytes as `.blob`), so that one decoder reads both stores.
    package func forEachRow(
        of entity: String, columns: [String], _ body: (_ key: Int64, _ values: [StoredValue]) throws -> Void
    ) throws {
        let selected = ([PostgresSQL.primaryKey] + columns.map(PostgresSQL.quote)).joined(separator: ", ")
        let sql = "SELECT \(selected) FROM \(table(entity)) WHERE \(PostgresSQL.primaryKey) > $1 ORDER BY \(PostgresSQL.primaryKey) LIMIT \(Self.batchRows)"
        var last = Int64.min
        while true {
            var bindings = PostgresBindings()
            bindings.append(last)
            let rows = try session.query(sql, bindings)
            for row in rows {
                let reader = PostgresRowReader(row)
                last = reader._int64(0)
                try body(last, columns.indices.map { reader.storedValue(Int32($0 + 1)) })
            }
            if rows.count < Self.batchRows { return }
        }
    }

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
