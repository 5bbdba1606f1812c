import OpenSwiftData

/// `osd query`: rows of one model that match an expression, sorted, paged, in a format.
package struct StoreQuery {
    package var model: String
    package var whereExpression: String?
    /// Sort keys as `path` or `path:desc` (`path:asc` too).
    package var sort: [String] = []
    package var limit: Int?
    package var offset: Int?

    package init(model: String, whereExpression: String? = nil, sort: [String] = [], limit: Int? = nil, offset: Int? = nil) {
        self.model = model
        self.whereExpression = whereExpression
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// The number of matching rows (limit and offset apply) in the store at `path` (a file, or a
    /// PostgreSQL URL with the configuration's `name`).
    package func count(storeAt path: String, name: String = "default") throws -> Int {
        let total = try matchingRows(storeAt: path, name: name).count()
        let skipped = max(0, total - (offset ?? 0))
        return limit.map { min($0, skipped) } ?? skipped
    }

    /// The matching rows of the store at `path` (a file, or a PostgreSQL URL with the
    /// configuration's `name`), written in `format` to `output` line by line.
    package func run(storeAt path: String, name: String = "default", format: String, output: (String) -> Void) throws {
        guard let format = RowFormat(rawValue: format) else {
            throw ToolError("Unknown format \(format.debugDescription); use table, json or csv.")
        }
        let rows = try matchingRows(storeAt: path, name: name)
        let table = rows.table
        switch format {
        case .json:
            output("[")
            var pending: String?
            try rows.forEach { row in
                if let pending { output(pending + ",") }
                pending = RowFormat.jsonObject(row, of: table)
            }
            if let pending { output(pending) }
            output("]")
        case .csv:
            output(RowFormat.csvLine(table.fieldNames))
            try rows.forEach { row in output(RowFormat.csvLine(RowFormat.fields(row))) }
        case .table:
            var lines: [[String?]] = []
            try rows.forEach { row in lines.append(RowFormat.fields(row)) }
            output(RowFormat.table(header: table.fieldNames, rows: lines))
            output("(\(lines.count) \(lines.count == 1 ? "row" : "rows"))")
        }
    }

    /// The rows the query selects from one store: how many match (before the limit and offset),
    /// and each of them in order.
    private struct MatchingRows {
        let table: ModelTable
        let count: () throws -> Int
        let forEach: ((ModelRow) throws -> Void) throws -> Void
    }

    private func matchingRows(storeAt path: String, name: String) throws -> MatchingRows {
        let store = try StoreArgument.open(path, name: name)
        let (table, filter, sort) = try plan(over: store.schema)
        return MatchingRows(table: table) {
            Int(try store.rowCount(of: table, filter: filter))
        } forEach: { body in
            try store.forEachRow(of: table, filter: filter, sort: sort, limit: limit, offset: offset, includeLinks: true, body)
        }
    }

    /// The model's table, and the filter and sort keys planned over the stored schema.
    private func plan(over schema: StoredSchema) throws -> (ModelTable, QueryExpression?, [QuerySort]) {
        let entity = try schema.entity(named: model)
        var filter: QueryExpression?
        if let whereExpression {
            do {
                filter = try QueryPlanner.filter(try QueryParser.parse(whereExpression), over: entity, in: schema)
            } catch {
                throw ToolError("--where: " + error.render(whereExpression))
            }
        }
        var keys: [QuerySort] = []
        for key in sort {
            var path = key
            var ascending = true
            if key.hasSuffix(":desc") { path = String(key.dropLast(5)); ascending = false }
            else if key.hasSuffix(":asc") { path = String(key.dropLast(4)) }
            do {
                keys.append(try QueryPlanner.sort(path, ascending: ascending, over: entity, in: schema))
            } catch {
                throw ToolError("--sort: " + error.render(path))
            }
        }
        if let limit, limit < 0 { throw ToolError("--limit must not be negative.") }
        if let offset, offset < 0 { throw ToolError("--offset must not be negative.") }
        return (ModelTable(entity), filter, keys)
    }
}
