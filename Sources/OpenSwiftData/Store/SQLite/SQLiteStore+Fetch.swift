/// A fetch in store terms: the entity's table, a filter, an order and a page.
struct StoreFetch {
    let layout: TableLayout
    var filter: QueryExpression?
    var sort: [QuerySort] = []
    var limit: Int?
    var offset: Int?

    /// The WHERE, ORDER BY and LIMIT clauses and their arguments.
    func clauses(ordered: Bool) -> (sql: String, arguments: [StoredValue]) {
        var compiler = SQLCompiler(layout: layout)
        var sql = ""
        if let filter { sql += " WHERE " + compiler.sql(filter) }
        if ordered && !sort.isEmpty { sql += compiler.orderBy(sort) }
        var arguments = compiler.arguments
        if limit != nil || offset != nil {
            sql += " LIMIT ? OFFSET ?"
            arguments.append(.integer(Int64(limit ?? -1)))
            arguments.append(.integer(Int64(offset ?? 0)))
        }
        return (sql, arguments)
    }
}

/// One row of a store's result, read column by column.
typealias StoreRow = SQLiteStatement

extension SQLiteStore {
    /// Calls `body` with each matching row. Column 0 is the primary key; the layout's eager attributes
    /// follow in order. `body` runs while a connection is checked out and must not call back into the store.
    func forEachRow(_ fetch: StoreFetch, attributes: [Int]? = nil, _ body: (StoreRow) throws -> Void) throws {
        let (clauses, arguments) = fetch.clauses(ordered: true)
        let prefix = attributes.map { fetch.layout.selectPrefix(attributes: $0) } ?? fetch.layout.selectPrefix
        try withReader { connection in
            let statement = try connection.statement(prefix + clauses)
            try statement.bind(arguments)
            defer { statement.reset() }
            while try statement.step() { try body(statement) }
        }
    }

    /// The number of matching rows.
    func count(_ fetch: StoreFetch) throws -> Int {
        let (clauses, arguments) = fetch.clauses(ordered: false)
        let sql = fetch.limit == nil && fetch.offset == nil
            ? "SELECT count(*) FROM \(fetch.layout.table)\(clauses)"
            : "SELECT count(*) FROM (SELECT 1 FROM \(fetch.layout.table)\(clauses))"
        return try withReader { connection in
            let statement = try connection.statement(sql)
            try statement.bind(arguments)
            defer { statement.reset() }
            return try statement.step() ? Int(statement._int64(0)) : 0
        }
    }

    /// The primary keys of the matching rows, in order.
    func primaryKeys(_ fetch: StoreFetch) throws -> [Int64] {
        let (clauses, arguments) = fetch.clauses(ordered: true)
        return try withReader { connection in
            let statement = try connection.statement("SELECT \(TableLayout.primaryKey) FROM \(fetch.layout.table)\(clauses)")
            try statement.bind(arguments)
            defer { statement.reset() }
            var keys: [Int64] = []
            while try statement.step() { keys.append(statement._int64(0)) }
            return keys
        }
    }

    /// Reads one attribute of one row. Returns `false` if the row no longer exists.
    func loadAttribute(_ layout: TableLayout, primaryKey: Int64, attribute: Int, _ body: (SQLiteStatement) throws -> Void) throws -> Bool {
        try withReader { connection in
            let statement = try connection.statement(
                "SELECT \(layout.column(attribute)) FROM \(layout.table) WHERE \(TableLayout.primaryKey) = ?")
            try statement._bind(primaryKey, 0)
            defer { statement.reset() }
            guard try statement.step() else { return false }
            try body(statement)
            return true
        }
    }

    /// Calls `body` with each row of a query the context composed.
    func forEachRow(sql: String, arguments: [StoredValue], _ body: (StoreRow) throws -> Void) throws {
        try withReader { connection in
            let statement = try connection.statement(sql)
            try statement.bind(arguments)
            defer { statement.reset() }
            while try statement.step() { try body(statement) }
        }
    }

    /// Calls `body` with the row of each primary key that still exists, in the order given.
    func forEachRow(_ layout: TableLayout, primaryKeys: [Int64], _ body: (SQLiteStatement) throws -> Void) throws {
        try withReader { connection in
            let statement = try connection.statement("\(layout.selectPrefix) WHERE \(TableLayout.primaryKey) = ?")
            for key in primaryKeys {
                statement.reset()
                try statement._bind(key, 0)
                if try statement.step() { try body(statement) }
            }
            statement.reset()
        }
    }
}
