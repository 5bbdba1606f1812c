import OpenSwiftData

extension PostgresBackend {
    /// The query of a fetch of the first rows by one attribute that an `#Index` of that attribute
    /// alone covers, or `nil` for any other fetch.
    ///
    /// Rows that tie are ordered by key. With `ORDER BY rating DESC, _pk LIMIT 50`, PostgreSQL
    /// reads the index on `rating` in order but then reads and sorts every row of the first
    /// ratings to put their keys in order: 1,001 rows for 50 when 1,000 trips share the top rating.
    /// The index also holds the key (``PostgresTableDDL/declaredIndexes``), so this query reads
    /// only what it returns, in three parts:
    /// - the cut: the value of the last row wanted, the N-th in the index's order (N = limit +
    ///   offset), read from the index alone;
    /// - every row before the cut's value (fewer than N, all of them in the result; the limit of
    ///   N, which removes none of them, tells the planner so, which without statistics on a
    ///   freshly filled table would scan the whole table for them);
    /// - the first N rows with the cut's value, by key, read from the index in that order;
    /// - or, when fewer than N rows match and there is no cut, every matching row.
    ///
    /// The parts are sorted again (a few rows), limited and offset. Each row has one more column
    /// after the model's: the value sorted by.
    func topRowsQuery(_ fetch: StoreFetch, table: PostgresTable, selectList: String) throws -> (sql: String, compiler: PostgresCompiler)? {
        guard let limit = fetch.limit, limit > 0, limit <= Self.topRowsLimit, fetch.sort.count == 1 else { return nil }
        let offset = max(fetch.offset ?? 0, 0)
        let key = fetch.sort[0]
        guard offset <= Self.topRowsLimit, key.expression == nil, key.collation == nil, key.attribute < table.entity.fields.count,
              table.ddl.definition.indices.contains([table.entity.fields[key.attribute].name])
        else { return nil }
        var compiler = PostgresCompiler(table: table)
        let term = try compiler.sortTerm(key)
        // A key that can be `nil` orders `NULL`s, which `=` and `<` do not compare.
        guard !term.canBeNil else { return nil }
        let conditions = try fetch.filter.map { "(\(try compiler.condition($0))) AND " } ?? ""
        let wanted = limit + offset
        let cutOffset = compiler.keyParameter(Int64(wanted - 1))
        let groupLimit = compiler.keyParameter(Int64(wanted))
        let pageLimit = compiler.keyParameter(Int64(limit))
        let pageOffset = offset > 0 ? " OFFSET \(compiler.keyParameter(Int64(offset)))" : ""
        let matching = "FROM \(table.table) AS t0 WHERE \(conditions)"
        let select = "SELECT \(selectList), \(term.value) AS \(Self.sortColumn) \(matching)"
        let cut = "(SELECT v FROM osd_cut)"
        let before = key.ascending ? "<" : ">"
        // Text sorts by its NFC form under "C"; the outer sort names the collation again.
        let sortedValue = table.entity.fields[key.attribute].storage == .text ? "\(Self.sortColumn) COLLATE \"C\"" : Self.sortColumn
        let sql = "WITH osd_cut AS MATERIALIZED (SELECT \(term.value) AS v \(matching)TRUE ORDER BY \(term.value) \(term.direction) LIMIT 1 OFFSET \(cutOffset))"
            + " SELECT * FROM ((\(select)\(term.value) \(before) \(cut) ORDER BY \(term.value) \(term.direction) LIMIT \(groupLimit))"
            + " UNION ALL (\(select)\(term.value) = \(cut) ORDER BY t0.\(PostgresSQL.primaryKey) LIMIT \(groupLimit))"
            + " UNION ALL (\(select)NOT EXISTS (SELECT FROM osd_cut))) AS osd_top"
            + " ORDER BY \(sortedValue) \(term.direction), \(PostgresSQL.primaryKey) LIMIT \(pageLimit)\(pageOffset)"
        return (sql, compiler)
    }

    /// The largest limit and offset ``topRowsQuery(_:table:selectList:)`` serves: past them, one
    /// sort of the matching rows costs about as much as the parts.
    static let topRowsLimit = 1_000

    /// The name of the column that holds the value sorted by; no property's column has it, as
    /// no Swift name holds a space.
    static let sortColumn = "\"osd sort\""
}
