import OpenSwiftData
import PostgresNIO

/// `osd query` on PostgreSQL: the rows of one model that a filter planned over the stored schema
/// selects, compiled by the store's own compiler, so that they are the rows a fetch with the same
/// predicate returns.
extension PostgresStoreAccess {
    /// Reads the rows of a model's table that `filter` selects, ordered by `sort` and then by key,
    /// after skipping `offset` and at most `limit` of them: each row's key, then the given columns
    /// as stored values in the SQLite store's terms. The rows come a thousand at a time through a
    /// cursor of the store's read-only transaction, so a large table is never held at once.
    ///
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` for a filter the store evaluates in Swift
    ///   (Swift's Character-based text functions, text holding U+0000), which cannot run without
    ///   the app's models.
    package func forEachRow(
        of entity: String, columns: [String], filter: QueryExpression?, sort: [QuerySort] = [], limit: Int? = nil, offset: Int? = nil,
        _ body: (_ key: Int64, _ values: [StoredValue]) throws -> Void
    ) throws {
        var compiler = try compiler(for: filter)
        let selected = ([PostgresSQL.primaryKey] + columns.map(PostgresSQL.quote)).map { "t0.\($0)" }.joined(separator: ", ")
        var sql = "SELECT \(selected) FROM \(table(entity)) AS t0"
        if let filter { sql += " WHERE \(try compiler.condition(filter))" }
        sql += try compiler.orderBy(sort)
        if let limit { sql += " LIMIT \(max(limit, 0))" }
        if let offset { sql += " OFFSET \(max(offset, 0))" }
        try session.query("DECLARE osd_rows NO SCROLL CURSOR FOR \(sql)", compiler.bindings)
        while true {
            let rows = try session.query("FETCH FORWARD \(Self.batchRows) FROM osd_rows")
            for row in rows {
                let reader = PostgresRowReader(row)
                try body(reader._int64(0), columns.indices.map { reader.storedValue(Int32($0 + 1)) })
            }
            if rows.count < Self.batchRows { break }
        }
        try session.query("CLOSE osd_rows")
    }

    /// The number of rows of a model's table that `filter` selects.
    package func count(of entity: String, filter: QueryExpression?) throws -> Int64 {
        var compiler = try compiler(for: filter)
        let condition = try filter.map { " WHERE \(try compiler.condition($0))" } ?? ""
        return try integers("SELECT count(*) FROM \(table(entity)) AS t0\(condition)", compiler.bindings).first ?? 0
    }

    private func compiler(for filter: QueryExpression?) throws -> PostgresCompiler {
        if let filter, !PostgresCompiler.canCompile(filter) {
            throw SwiftDataError(.unsupportedPredicate, reason: """
                On PostgreSQL the store runs Swift's Character-based text functions (contains, starts(with:), \
                hasPrefix, localizedStandardContains, count of text) and comparisons with text holding U+0000 \
                in Swift, which needs the app's models; compare text with ==, !=, <, <= or >, or export the rows
                """)
        }
        return PostgresCompiler(namespace: quotedNamespace)
    }
}
