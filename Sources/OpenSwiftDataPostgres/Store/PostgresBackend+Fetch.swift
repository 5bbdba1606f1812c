import OpenSwiftData
import PostgresNIO

extension PostgresBackend: StoreBackend, AggregatingStore {
    /// PostgreSQL evaluates every expression but Swift's Character-based text functions, text
    /// holding U+0000, expressions nested deeper than ``QueryExpression/maximumStoreDepth`` and
    /// ones binding more values than a statement can take; those run in Swift on the rows the rest
    /// of the predicate selects.
    func canEvaluate(_ expression: QueryExpression) -> Bool {
        expression.shape.fitsAStatement(parameterLimit: PostgresSQL.maximumParameters) && PostgresCompiler.canCompile(expression)
    }

    /// PostgreSQL sorts by everything but a locale-aware string order: its collations are not
    /// Foundation's, so those models are sorted in Swift.
    func canSort(by sort: [QuerySort]) -> Bool {
        sort.allSatisfy { $0.collation == nil && ($0.expression.map(PostgresCompiler.canCompile) ?? true) }
    }

    func rowShape(of entity: Schema.Entity) throws -> RowShape {
        try table(for: entity.name).shape
    }

    /// The WHERE, ORDER BY, LIMIT and OFFSET clauses of a fetch, and their parameters.
    ///
    /// The limit is a number in the text, not a parameter: PostgreSQL plans a prepared statement
    /// once for all its executions only when that plan costs about what a plan for the values
    /// does, and it prices an unknown limit as a tenth of the rows, so with the limit a
    /// parameter it planned every execution anew. A fetch's limit is most often a constant of the
    /// code that makes it. The offset, which a paging client changes with each page, stays a
    /// parameter.
    func clauses(_ fetch: StoreFetch, table: PostgresTable, ordered: Bool) throws -> (sql: String, compiler: PostgresCompiler) {
        var compiler = PostgresCompiler(table: table)
        var sql = ""
        if let filter = fetch.filter { sql += " WHERE " + (try compiler.condition(filter)) }
        if ordered && !fetch.sort.isEmpty { sql += try compiler.orderBy(fetch.sort) }
        if let limit = fetch.limit { sql += " LIMIT \(max(limit, 0))" }
        if let offset = fetch.offset, offset > 0 { sql += " OFFSET \(compiler.keyParameter(Int64(offset)))" }
        return (sql, compiler)
    }

    /// Runs a fetch's query, prepared on the connection (a fetch of a fixed shape with a few
    /// parameters: the server then parses and analyzes it once per connection rather than every
    /// time), and calls `body` with each row (see ``forEach(_:_:)``).
    private func forEach(
        _ sql: String, _ compiler: PostgresCompiler, checking rows: RowTypes? = nil, counterColumn: Int? = nil,
        _ body: (PostgresRowReader) throws -> Void
    ) throws {
        try forEach(statement(sql, compiler), checking: rows, counterColumn: counterColumn, body)
    }

    /// A query compiled from a fetch: prepared when it has at most
    /// ``PostgresSession/preparedParameterLimit`` parameters, parsed otherwise.
    private func statement(_ sql: String, _ compiler: PostgresCompiler) -> PostgresStatement {
        compiler.parameters.count <= PostgresSession.preparedParameterLimit
            ? .prepared(sql, compiler.arguments) : .parsed(sql, compiler.bindings)
    }

    /// The model rows a statement returns, whose column types are checked
    /// (``PostgresTable/checkTypes(of:properties:location:keyed:)``).
    private struct RowTypes {
        let table: PostgresTable
        /// The properties after the key.
        let properties: [Int]
        /// Whether the key comes first.
        var keyed = true
    }

    /// Runs a statement and calls `body` with each row, after the statement has finished, so that a
    /// store call `body` makes (a relationship resolved while rows are decoded) finds the session
    /// free. With `rows`, the first row's column types are checked first. The statements of faults
    /// and relationships have fixed shapes and are prepared.
    private func forEach(
        _ statement: PostgresStatement, checking rows: RowTypes? = nil, counterColumn: Int? = nil, _ body: (PostgresRowReader) throws -> Void
    ) throws {
        let results = try read(statement, counterColumn: counterColumn)
        if let rows, let first = results.first {
            try rows.table.checkTypes(of: PostgresRowReader(first), properties: rows.properties, location: location, keyed: rows.keyed)
        }
        for row in results { try body(PostgresRowReader(row)) }
    }

    func forEachRow(_ fetch: StoreFetch, attributes: [Int]?, _ body: (StoreRow) throws -> Void) throws {
        let table = try table(for: fetch.entity.name)
        let rows = RowTypes(table: table, properties: attributes ?? table.shape.selectedProperties)
        // The key, the properties, then the history counter, for a reader to learn of commits
        // from the fetch itself.
        let counterColumn = 1 + rows.properties.count
        let selectList = attributes.map { table.selectList(attributes: $0) } ?? table.selectList
        let (clauses, compiler) = try clauses(fetch, table: table, ordered: true)
        let sql = fetch.limit == nil && fetch.offset == nil
            ? "SELECT \(selectList), \(historyCounterColumn) FROM \(table.table) AS t0" + clauses
            // A page takes the counter after its sort and limit, so that only the page's rows are
            // made again with it. Beside the scan, every row the filter keeps would be: the scan
            // could no longer hand on the table's own tuples (W3: 11.6 ms a query against 9.4 ms).
            // PostgreSQL keeps a limited subquery apart, and its rows in their order.
            : "SELECT page.*, \(historyCounterColumn) FROM (SELECT \(selectList) FROM \(table.table) AS t0\(clauses)) AS page"
        try forEach(sql, compiler, checking: rows, counterColumn: counterColumn) { try body($0) }
    }

    func count(_ fetch: StoreFetch) throws -> Int {
        let table = try table(for: fetch.entity.name)
        let (clauses, compiler) = try clauses(fetch, table: table, ordered: false)
        let sql = fetch.limit == nil && fetch.offset == nil
            ? "SELECT count(*) FROM \(table.table) AS t0\(clauses)"
            : "SELECT count(*) FROM (SELECT 1 FROM \(table.table) AS t0\(clauses)) AS page"
        var result = 0
        try forEach(sql, compiler) { result = Int($0._int64(0)) }
        return result
    }

    /// `sum`, `min` or `max` of an attribute over the matching rows. PostgreSQL sums `bigint`s
    /// exactly (as `numeric`); a sum beyond 64 bits is left to the context, which says so.
    /// Floating-point sums run in ``PostgresSwiftSum``'s aggregate, which adds as Swift does; one
    /// that reaches infinity from finite values, which the server refuses, is left to the context,
    /// as are all of them in a namespace without the aggregate. Extremes of integers, dates and
    /// `Decimal`s run in the server; those of `Double`s and text are left to the context.
    func aggregate(_ aggregate: StoreAggregate, of attribute: Int, in fetch: StoreFetch, _ body: (StoreRow) throws -> Void) throws -> Bool {
        let table = try table(for: fetch.entity.name)
        guard let column = table.columns[attribute] else { return false }
        let (clauses, compiler) = try clauses(fetch, table: table, ordered: false)
        let source = "\(table.table) AS t0\(clauses)"
        let value = "t0.\(column)"
        // Column 1 is the count when the aggregate counts; an integer sum's test of NULL follows.
        let count = aggregate.countsValues ? ", count(\(value))" : ""
        let sql: String
        switch aggregate.withoutCount {
        case .floatingPointSum:
            guard sumsAsSwift else { return false }
            sql = "SELECT \(PostgresSwiftSum.call(value, namespace: namespace))\(count) FROM \(source)"
        case .minimum, .maximum:
            // A `float8` NaN sorts after every number, and of equal values (0 and -0) `min` and
            // `max` keep the last; text compares by its NFC form's bytes, not Swift's order. The
            // context reads those. `Decimal`s compare by their order-preserving bytes.
            guard let storage = fetch.entity.fields[attribute].storage, storage != .real, storage != .text else { return false }
            if storage == .decimal {
                // PostgreSQL 15 has no `min(bytea)`: the first value in byte order (no row when none).
                let order = aggregate == .minimum ? "ASC" : "DESC"
                sql = "SELECT v FROM (SELECT \(value) AS v FROM \(source)) AS s WHERE v IS NOT NULL ORDER BY v \(order) LIMIT 1"
            } else {
                sql = "SELECT \(aggregate == .minimum ? "min" : "max")(\(value)) FROM \(source)"
            }
        default:
            let countColumn = aggregate.countsValues ? ", counted" : ""
            let countInSubquery = aggregate.countsValues ? "\(count) AS counted" : ""
            sql = "SELECT CASE WHEN total BETWEEN \(Int64.min) AND \(Int64.max) THEN total::int8 END\(countColumn), total IS NULL FROM (SELECT sum(\(value)) AS total\(countInSubquery) FROM \(source)) AS aggregate"
        }
        let rows: [PostgresRow]
        do {
            rows = try read(statement(sql, compiler))
        } catch let error as SwiftDataError where aggregate.withoutCount == .floatingPointSum && PostgresFailure.isOutOfRange(error) {
            return false
        }
        let sumIsNull: Int32 = aggregate.countsValues ? 2 : 1
        for row in rows.lazy.map(PostgresRowReader.init) {
            // A sum that is not NULL but no `bigint` does not fit in 64 bits.
            if aggregate.withoutCount == .sum && row._isNull(0) && row._int64(sumIsNull) == 0 { return false }
            try body(row)
        }
        return true
    }

    /// Several aggregates in one statement, each as ``aggregate(_:of:in:_:)`` lays it out (an integer
    /// sum's test of NULL after its count): sums of integers and of `Double`s, and extremes of
    /// integers and dates. One of another kind (extremes of `Double`s, text and `Decimal`s), a sum
    /// beyond 64 bits or a floating-point sum the server refuses leaves them all to the context.
    func aggregates(_ requests: [AggregateRequest], in fetch: StoreFetch, _ body: (StoreRow, [Int32]) throws -> Void) throws -> Bool {
        if requests.count == 1, let request = requests.first {
            return try aggregate(request.aggregate, of: request.attribute, in: fetch) { try body($0, [0]) }
        }
        let table = try table(for: fetch.entity.name)
        var computed: [String] = []
        var selected: [String] = []
        var firstColumns: [Int32] = []
        // Each integer sum's column, and the column saying whether it was NULL.
        var integerSums: [(sum: Int32, isNull: Int32)] = []
        for (index, request) in requests.enumerated() {
            guard let column = table.columns[request.attribute] else { return false }
            let value = "t0.\(column)"
            let first = Int32(selected.count)
            firstColumns.append(first)
            switch request.aggregate.withoutCount {
            case .floatingPointSum:
                guard sumsAsSwift else { return false }
                computed.append("\(PostgresSwiftSum.call(value, namespace: namespace)) AS a\(index)")
                selected.append("a\(index)")
            case .minimum, .maximum:
                guard let storage = fetch.entity.fields[request.attribute].storage,
                      storage != .real, storage != .text, storage != .decimal else { return false }
                computed.append("\(request.aggregate == .minimum ? "min" : "max")(\(value)) AS a\(index)")
                selected.append("a\(index)")
            default:
                computed.append("sum(\(value)) AS a\(index)")
                selected.append("CASE WHEN a\(index) BETWEEN \(Int64.min) AND \(Int64.max) THEN a\(index)::int8 END")
            }
            if request.aggregate.countsValues {
                computed.append("count(\(value)) AS n\(index)")
                selected.append("n\(index)")
            }
            if request.aggregate.withoutCount == .sum {
                integerSums.append((first, Int32(selected.count)))
                selected.append("a\(index) IS NULL")
            }
        }
        let (clauses, compiler) = try clauses(fetch, table: table, ordered: false)
        let sql = "SELECT \(selected.joined(separator: ", ")) FROM (SELECT \(computed.joined(separator: ", ")) FROM \(table.table) AS t0\(clauses)) AS aggregate"
        let floatingPointSums = requests.contains { $0.aggregate.withoutCount == .floatingPointSum }
        let rows: [PostgresRowReader]
        do {
            rows = try read(statement(sql, compiler)).map(PostgresRowReader.init)
        } catch let error as SwiftDataError where floatingPointSums && PostgresFailure.isOutOfRange(error) {
            return false
        }
        // A sum that is not NULL but no `bigint` does not fit in 64 bits.
        for row in rows where integerSums.contains(where: { row._isNull($0.sum) && row._int64($0.isNull) == 0 }) { return false }
        for row in rows { try body(row, firstColumns) }
        return true
    }

    func primaryKeys(_ fetch: StoreFetch) throws -> [Int64] {
        let table = try table(for: fetch.entity.name)
        let (clauses, compiler) = try clauses(fetch, table: table, ordered: true)
        var keys: [Int64] = []
        try forEach("SELECT t0.\(PostgresSQL.primaryKey) FROM \(table.table) AS t0\(clauses)", compiler) { keys.append($0._int64(0)) }
        return keys
    }

    func forEachRow(of entity: Schema.Entity, primaryKeys: [Int64], _ body: (StoreRow) throws -> Void) throws {
        guard !primaryKeys.isEmpty else { return }
        let table = try table(for: entity.name)
        var rows: [Int64: PostgresRowReader] = [:]
        let sql = "\(table.selectPrefix) WHERE t0.\(PostgresSQL.primaryKey) = ANY($1::int8[])"
        let types = RowTypes(table: table, properties: table.shape.selectedProperties)
        try forEach(.prepared(sql, [PostgresSQL.int8Array(primaryKeys)]), checking: types) { rows[$0._int64(0)] = $0 }
        for key in primaryKeys { if let row = rows[key] { try body(row) } }
    }

    func loadAttribute(of entity: Schema.Entity, primaryKey: Int64, attribute: Int, _ body: (StoreRow) throws -> Void) throws -> Bool {
        let table = try table(for: entity.name)
        var found = false
        let sql = "SELECT \(table.column(attribute)) FROM \(table.table) WHERE \(PostgresSQL.primaryKey) = $1::int8"
        try forEach(.prepared(sql, [PostgresData(int64: primaryKey)]), checking: RowTypes(table: table, properties: [attribute], keyed: false)) {
            found = true
            try body($0)
        }
        return found
    }

    func rowExists(of entity: Schema.Entity, key: Int64) throws -> Bool {
        let table = try table(for: entity.name)
        var found = false
        let sql = "SELECT 1::int8 FROM \(table.table) WHERE \(PostgresSQL.primaryKey) = $1::int8"
        try forEach(.prepared(sql, [PostgresData(int64: key)])) { _ in found = true }
        return found
    }

    func forEachRelatedRow(
        of link: RelationshipLink, from source: Schema.Entity, owners: [Int64], destination: Schema.Entity,
        _ body: (StoreRow, _ owner: Int64) throws -> Void
    ) throws {
        let table = try self.table(for: source.name)
        let target = try self.table(for: destination.name)
        let ownerColumn: String
        let join: String
        switch link.storage {
        case .foreignKey:
            // The owner's column holds the key: select the destination rows it names.
            ownerColumn = "o.\(PostgresSQL.primaryKey)"
            join = " JOIN \(table.table) AS o ON o.\(table.column(link.property)) = t0.\(PostgresSQL.primaryKey)"
        case .inverseForeignKey:
            guard let inverse = link.inverse else { return }
            ownerColumn = "t0.\(target.column(inverse))"
            join = ""
        case .link(let name, let ownerIsSource):
            let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
            ownerColumn = "l.\(own)"
            join = " JOIN \(table.linkTable(name)) AS l ON l.\(other) = t0.\(PostgresSQL.primaryKey)"
        }
        // Grouped by owner, each group in key order; the owner's key after the row's columns.
        let sql = "SELECT \(target.selectList), \(ownerColumn) FROM \(target.table) AS t0\(join) WHERE \(ownerColumn) = ANY($1::int8[]) ORDER BY \(ownerColumn), t0.\(PostgresSQL.primaryKey)"
        let ownerIndex = Int32(target.shape.selectedProperties.count + 1)
        let rows = RowTypes(table: target, properties: target.shape.selectedProperties)
        try forEach(.prepared(sql, [PostgresSQL.int8Array(owners)]), checking: rows) { try body($0, $0._int64(ownerIndex)) }
    }
}
