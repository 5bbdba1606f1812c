extension SQLiteStore {
    /// The WHERE, ORDER BY and LIMIT clauses of a fetch, and their arguments.
    func clauses(_ fetch: StoreFetch, layout: TableLayout, ordered: Bool) -> (sql: String, arguments: [StoredValue]) {
        var compiler = SQLCompiler(layout: layout)
        var sql = ""
        if let filter = fetch.filter { sql += " WHERE " + compiler.sql(filter) }
        if ordered && !fetch.sort.isEmpty { sql += compiler.orderBy(fetch.sort) }
        var arguments = compiler.arguments
        if fetch.limit != nil || fetch.offset != nil {
            // SQLite reads a negative limit as none; a negative `fetchLimit` fetches nothing, as
            // the context's own paging (`prefix`) and the other stores have it.
            sql += " LIMIT ? OFFSET ?"
            arguments.append(.integer(fetch.limit.map { Int64(max($0, 0)) } ?? -1))
            arguments.append(.integer(Int64(max(fetch.offset ?? 0, 0))))
        }
        return (sql, arguments)
    }

    /// The clauses of a fetch of the first few rows in an order: the keys of those rows first,
    /// sorting only what the filter and the sort read (which an index often holds by itself),
    /// then those rows, sorted again.
    ///
    /// SQLite sorts whole rows otherwise: with `ORDER BY name, _pk` (the key breaks ties in the
    /// order models were saved) and no index on `name`, every row is read from the table and
    /// sorted to find the first 50. (An index on the property holds the key after it and serves
    /// the order by itself, forwards or backwards: ties follow the last key's direction.)
    func topRowsClauses(_ fetch: StoreFetch, layout: TableLayout) -> (sql: String, arguments: [StoredValue]) {
        let (keys, keyArguments) = clauses(fetch, layout: layout, ordered: true)
        var compiler = SQLCompiler(layout: layout)
        let order = compiler.orderBy(fetch.sort)
        let key = "\(layout.table).\(TableLayout.primaryKey)"
        return (" WHERE \(key) IN (SELECT \(key) FROM \(layout.table)\(keys))\(order)", keyArguments + compiler.arguments)
    }

    func rowShape(of entity: Schema.Entity) throws -> RowShape {
        try layout(for: entity.name).shape
    }

    /// Calls `body` with each matching row. Column 0 is the primary key; the layout's selected
    /// properties (or `attributes`) follow in order. A store call `body` makes runs on the same
    /// connection.
    func forEachRow(_ fetch: StoreFetch, attributes: [Int]?, _ body: (StoreRow) throws -> Void) throws {
        let layout = try layout(for: fetch.entity.name)
        let (clauses, arguments) = fetch.isTopRows ? topRowsClauses(fetch, layout: layout) : clauses(fetch, layout: layout, ordered: true)
        let prefix = attributes.map { layout.selectPrefix(attributes: $0) } ?? layout.selectPrefix
        try withReader { connection in
            let statement = try connection.statement(prefix + clauses)
            try statement.bind(arguments)
            defer { statement.reset() }
            while try statement.step() { try body(statement) }
        }
    }

    /// Compiles the filter of `fetch` once; each run adds `AND key IN (…)` for its keys and uses the
    /// connection's cached statement for that many keys.
    func keyedFetch(_ fetch: StoreFetch, attributes: [Int]?) throws -> any KeyedFetch {
        let layout = try layout(for: fetch.entity.name)
        var compiler = SQLCompiler(layout: layout)
        let filter = fetch.filter.map { "(\(compiler.sql($0))) AND " } ?? ""
        let prefix = attributes.map { layout.selectPrefix(attributes: $0) } ?? layout.selectPrefix
        return SQLiteKeyedFetch(store: self, head: "\(prefix) WHERE \(filter)\(layout.table).\(TableLayout.primaryKey) IN (", arguments: compiler.arguments)
    }

    /// The number of matching rows.
    func count(_ fetch: StoreFetch) throws -> Int {
        let layout = try layout(for: fetch.entity.name)
        let (clauses, arguments) = clauses(fetch, layout: layout, ordered: false)
        let sql = fetch.limit == nil && fetch.offset == nil
            ? "SELECT count(*) FROM \(layout.table)\(clauses)"
            : "SELECT count(*) FROM (SELECT 1 FROM \(layout.table)\(clauses))"
        return try withReader { connection in
            let statement = try connection.statement(sql)
            try statement.bind(arguments)
            defer { statement.reset() }
            return try statement.step() ? Int(statement._int64(0)) : 0
        }
    }

    /// `SUM`, `MIN` or `MAX` (or `osd_sum_real`) of an attribute over the matching rows (see
    /// ``aggregates(_:in:_:)``).
    func aggregate(_ aggregate: StoreAggregate, of attribute: Int, in fetch: StoreFetch, _ body: (StoreRow) throws -> Void) throws -> Bool {
        try aggregates([AggregateRequest(aggregate, of: attribute)], in: fetch) { row, _ in try body(row) }
    }

    /// `SUM`, `MIN` or `MAX` (or `osd_sum_real`) of attributes over the matching rows, in one
    /// statement. A sum that overflows 64 bits on the way (SQLite's `SUM` then fails, even when
    /// the total would fit) is left to the context, which adds exactly; so is a floating-point
    /// sum over a value that is no number, whose error the context's own read names. Extremes of
    /// `Double`s, text and `Decimal`s (``ExtremeColumn``) skip NaN and compare text as Swift does;
    /// ones over values of another type, or over NaN alone, are left to the context too. Any
    /// aggregate left to the context leaves them all.
    func aggregates(_ requests: [AggregateRequest], in fetch: StoreFetch, _ body: (StoreRow, [Int32]) throws -> Void) throws -> Bool {
        let layout = try layout(for: fetch.entity.name)
        var selected: [String] = []
        var firstColumns: [Int32] = []
        var extremes: [(ExtremeColumn, first: Int32)] = []
        var column: Int32 = 0
        for request in requests {
            let aggregate = request.aggregate
            let name = layout.column(request.attribute)
            let function = switch aggregate.withoutCount {
            case .floatingPointSum: SwiftSum.functionName
            case .minimum: "min"
            case .maximum: "max"
            default: "sum"
            }
            firstColumns.append(column)
            if aggregate == .minimum || aggregate == .maximum,
               let extreme = fetch.entity.fields[request.attribute].storage.flatMap({ ExtremeColumn(column: name, storage: $0) }) {
                selected.append(extreme.select(function))
                extremes.append((extreme, column))
                column += ExtremeColumn.width
            } else {
                selected.append("\(function)(\(name))" + (aggregate.countsValues ? ", count(\(name))" : ""))
                column += aggregate.countsValues ? 2 : 1
            }
        }
        let (clauses, arguments) = clauses(fetch, layout: layout, ordered: false)
        let sql = "SELECT \(selected.joined(separator: ", ")) FROM \(layout.table)\(clauses)"
        let sums = requests.contains { $0.aggregate.withoutCount == .sum }
        let floatingPointSums = requests.contains { $0.aggregate.withoutCount == .floatingPointSum }
        return try withReader { connection in
            let statement = try connection.statement(sql)
            try statement.bind(arguments)
            defer { statement.reset() }
            let stepped: Bool
            do {
                stepped = try statement.step()
            } catch let error as SQLiteError where sums && error.message == "integer overflow" {
                return false
            } catch is SQLiteError where floatingPointSums {
                return false
            }
            if stepped, extremes.contains(where: { !$0.0.isComplete(statement, from: $0.first) }) { return false }
            if stepped { try body(statement, firstColumns) }
            return true
        }
    }

    /// The primary keys of the matching rows, in order.
    func primaryKeys(_ fetch: StoreFetch) throws -> [Int64] {
        let layout = try layout(for: fetch.entity.name)
        let (clauses, arguments) = clauses(fetch, layout: layout, ordered: true)
        return try withReader { connection in
            let statement = try connection.statement("SELECT \(TableLayout.primaryKey) FROM \(layout.table)\(clauses)")
            try statement.bind(arguments)
            defer { statement.reset() }
            var keys: [Int64] = []
            while try statement.step() { keys.append(statement._int64(0)) }
            return keys
        }
    }

    /// Reads one attribute of one row. Returns `false` if the row no longer exists.
    func loadAttribute(of entity: Schema.Entity, primaryKey: Int64, attribute: Int, _ body: (StoreRow) throws -> Void) throws -> Bool {
        let layout = try layout(for: entity.name)
        return try withReader { connection in
            let statement = try connection.statement(
                "SELECT \(layout.column(attribute)) FROM \(layout.table) WHERE \(TableLayout.primaryKey) = ?")
            try statement._bind(primaryKey, 0)
            defer { statement.reset() }
            guard try statement.step() else { return false }
            try body(statement)
            return true
        }
    }

    /// Whether the entity's table has a row with this key.
    func rowExists(of entity: Schema.Entity, key: Int64) throws -> Bool {
        let layout = try layout(for: entity.name)
        return try withReader { connection in
            let statement = try connection.statement("SELECT 1 FROM \(layout.table) WHERE \(TableLayout.primaryKey) = ?")
            try statement._bind(key, 0)
            defer { statement.reset() }
            return try statement.step()
        }
    }

    /// Calls `body` with each row of `destination` that `link` relates to one of `owners`, and the
    /// owner's key: grouped by owner, each group in key order, in one query whatever the number
    /// of owners. The row's columns are those of a fetch of `destination`.
    func forEachRelatedRow(
        of link: RelationshipLink, from source: Schema.Entity, owners: [Int64], destination: Schema.Entity,
        _ body: (StoreRow, _ owner: Int64) throws -> Void
    ) throws {
        let layout = try self.layout(for: source.name)
        let target = try self.layout(for: destination.name)
        let keys = owners.count == 1 ? "?" : "(SELECT value FROM json_each(?))"
        let comparison = owners.count == 1 ? "=" : "IN"
        let argument: StoredValue = owners.count == 1
            ? .integer(owners[0]) : .text("[" + owners.map(String.init).joined(separator: ",") + "]")
        let ownerColumn: String
        var sql: String
        switch link.storage {
        case .foreignKey:
            // The owner's column holds the key: select the destination rows it names.
            ownerColumn = "o.\(TableLayout.primaryKey)"
            sql = "\(target.selectList), \(ownerColumn) FROM \(target.table) JOIN \(layout.table) AS o ON o.\(layout.column(link.property)) = \(target.table).\(TableLayout.primaryKey) WHERE \(ownerColumn) \(comparison) \(keys)"
        case .inverseForeignKey:
            guard let inverse = link.inverse else { return }
            ownerColumn = "\(target.table).\(target.column(inverse))"
            sql = "\(target.selectList), \(ownerColumn) FROM \(target.table) WHERE \(ownerColumn) \(comparison) \(keys)"
        case .link(let name, let ownerIsSource):
            let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
            ownerColumn = "l.\(own)"
            sql = "\(target.selectList), \(ownerColumn) FROM \(target.table) JOIN \(SQL.quote(name.table)) AS l ON l.\(other) = \(target.table).\(TableLayout.primaryKey) WHERE \(ownerColumn) \(comparison) \(keys)"
        }
        // By owner, then primary key: the order of the foreign-key or link index, so SQLite
        // need not sort; each owner's group comes out in primary-key order.
        sql += " ORDER BY \(ownerColumn), \(target.table).\(TableLayout.primaryKey)"
        let ownerIndex = Int32(target.selectedProperties.count + 1)
        try withReader { connection in
            let statement = try connection.statement(sql)
            try statement.bind([argument])
            defer { statement.reset() }
            while try statement.step() { try body(statement, statement._int64(ownerIndex)) }
        }
    }

    /// Calls `body` with the row of each primary key that still exists, in the order given.
    func forEachRow(of entity: Schema.Entity, primaryKeys: [Int64], _ body: (StoreRow) throws -> Void) throws {
        let layout = try layout(for: entity.name)
        try withReader { connection in
            let statement = try connection.statement("\(layout.selectPrefix) WHERE \(TableLayout.primaryKey) = ?")
            // Reset however the loop ends: a statement left stepping keeps its read open, and the
            // pooled connection would go on reading that state of the store.
            defer { statement.reset() }
            for key in primaryKeys {
                statement.reset()
                try statement._bind(key, 0)
                if try statement.step() { try body(statement) }
            }
        }
    }
}

/// A fetch whose filter is compiled to SQL once, run over a few keys at a time.
struct SQLiteKeyedFetch: KeyedFetch {
    let store: SQLiteStore
    /// The statement up to the opening parenthesis of its key list.
    let head: String
    /// The filter's arguments, before the keys.
    let arguments: [StoredValue]

    func forEachRow(keys: [Int64], _ body: (StoreRow) throws -> Void) throws {
        guard !keys.isEmpty else { return }
        let sql = head + repeatElement("?", count: keys.count).joined(separator: ", ") + ")"
        try store.withReader { connection in
            let statement = try connection.statement(sql)
            try statement.bind(arguments + keys.map { .integer($0) })
            defer { statement.reset() }
            while try statement.step() { try body(statement) }
        }
    }
}
