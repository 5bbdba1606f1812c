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

    /// The number of matching rows (limit and offset apply).
    package func count(storeAt path: String) throws -> Int {
        let (file, table, clause) = try prepare(path)
        let total = Int(try table.count(in: file, whereClause: clause.whereClause, arguments: clause.arguments))
        let skipped = max(0, total - (offset ?? 0))
        return limit.map { min($0, skipped) } ?? skipped
    }

    /// The matching rows, written in `format` to `output` line by line.
    package func run(storeAt path: String, format: String, output: (String) -> Void) throws {
        guard let format = RowFormat(rawValue: format) else {
            throw ToolError("Unknown format \(format.debugDescription); use table, json or csv.")
        }
        let (file, table, clause) = try prepare(path)
        switch format {
        case .json:
            output("[")
            var pending: String?
            try table.forEachRow(in: file, whereClause: clause.whereClause, orderBy: clause.orderBy, arguments: clause.arguments, limit: limit, offset: offset) { row in
                if let pending { output(pending + ",") }
                pending = RowFormat.jsonObject(row, of: table)
            }
            if let pending { output(pending) }
            output("]")
        case .csv:
            output(RowFormat.csvLine(table.fieldNames))
            try table.forEachRow(in: file, whereClause: clause.whereClause, orderBy: clause.orderBy, arguments: clause.arguments, limit: limit, offset: offset) { row in
                output(RowFormat.csvLine(RowFormat.fields(row)))
            }
        case .table:
            var rows: [[String?]] = []
            try table.forEachRow(in: file, whereClause: clause.whereClause, orderBy: clause.orderBy, arguments: clause.arguments, limit: limit, offset: offset) { row in
                rows.append(RowFormat.fields(row))
            }
            output(RowFormat.table(header: table.fieldNames, rows: rows))
            output("(\(rows.count) \(rows.count == 1 ? "row" : "rows"))")
        }
    }

    private func prepare(_ path: String) throws -> (StoreFile, ModelTable, (whereClause: String, orderBy: String, arguments: [StoredValue])) {
        let file = try StoreFile(path: path)
        let entity = try file.schema.entity(named: model)
        var filter: QueryExpression?
        if let whereExpression {
            do {
                filter = try QueryPlanner.filter(try QueryParser.parse(whereExpression), over: entity, in: file.schema)
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
                keys.append(try QueryPlanner.sort(path, ascending: ascending, over: entity, in: file.schema))
            } catch {
                throw ToolError("--sort: " + error.render(path))
            }
        }
        if let limit, limit < 0 { throw ToolError("--limit must not be negative.") }
        if let offset, offset < 0 { throw ToolError("--offset must not be negative.") }
        return (file, ModelTable(entity), StoreFile.sql(filter: filter, sort: keys, table: entity.name))
    }
}
