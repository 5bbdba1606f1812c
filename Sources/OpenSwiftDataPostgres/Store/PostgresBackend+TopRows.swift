import OpenSwiftData

extension PostgresBackend {
    /// The query of a fetch of the first rows by one attribute that an `#Index` of that attribute
    /// alone covers, or `nil` for any other fetch.
    ///
    /// Rows that tie are ordered by key. With `ORDER BY rating DESC, _pk LIMIT 50`, PostgreSQL
    /// reads the index on `rating` in order but then reads and sorts every row of the first
    /// ratings to put their keys in order: 1,001 rows for 50 when 1,000 trips share the top rating.
    /// The index also holds the key (``PostgresTableDDL/declaredIndexes``), so this query reads
    /// only what it returns. With N = limit + offset:
    /// - the cut: the value of the last of the first N rows (of the last row when fewer match),
    ///   from N entries of the index;
    /// - every row before the cut's value: fewer than N, all of them in the result (the limit of
    ///   N removes none of them, and tells the planner so, which would otherwise scan a freshly
    ///   filled table it has no statistics of yet);
    /// - the first N rows with the cut's value, by key, read from the index in that order.
    ///
    /// The two parts are sorted again (a few rows), limited and offset. Each row has one more
    /// column after those of `selectList`: the value sorted by.
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
        // The numbers are in the text, as a fetch's limit is (see `clauses`), so that PostgreSQL
        // plans the statement once rather than at each execution.
        let wanted = limit + offset
        let (before, backwards) = key.ascending ? ("<", "DESC") : (">", "ASC")
        let matching = "FROM \(table.table) AS t0 WHERE \(conditions)"
        let select = "SELECT \(selectList), \(term.value) AS \(Self.sortColumn) \(matching)"
        let cut = "(SELECT v FROM osd_cut)"
        // Text sorts by its NFC form under "C"; the outer sort names the collation again.
        let sortedValue = table.entity.fields[key.attribute].storage == .text ? "\(Self.sortColumn) COLLATE \"C\"" : Self.sortColumn
        let sql = "WITH osd_cut AS MATERIALIZED (SELECT v FROM (SELECT \(term.value) AS v \(matching)TRUE"
            + " ORDER BY \(term.value) \(term.direction) LIMIT \(wanted)) AS osd_first ORDER BY v \(backwards) LIMIT 1)"
            + " SELECT * FROM ((\(select)\(term.value) \(before) \(cut) ORDER BY \(term.value) \(term.direction) LIMIT \(wanted))"
            + " UNION ALL (\(select)\(term.value) = \(cut) ORDER BY t0.\(PostgresSQL.primaryKey) LIMIT \(wanted))) AS osd_top"
            + " ORDER BY \(sortedValue) \(term.direction), \(PostgresSQL.primaryKey) LIMIT \(limit)\(offset > 0 ? " OFFSET \(offset)" : "")"
        return (sql, compiler)
    }

    /// The largest limit and offset ``topRowsQuery(_:table:selectList:)`` serves, so that its
    /// parts read and sort at most 4,000 rows and the numbers written into its text (one
    /// prepared statement each) stay few; a fetch past them runs as one query.
    static let topRowsLimit = 1_000

    /// The name of the column that holds the value sorted by; no property's column has it, as
    /// no Swift name holds a space.
    static let sortColumn = "\"osd sort\""
}
