import OpenSwiftData
import OpenSwiftDataPostgres

extension PostgresStoreAccess {
    /// The rows of a model's table that `filter` selects, ordered by `sort` and then by key, paged
    /// by `limit` and `offset`, each with the to-many relationships it owns (read a thousand rows
    /// at a time).
    func forEachRow(
        of table: ModelTable, filter: QueryExpression?, sort: [QuerySort] = [], limit: Int? = nil, offset: Int? = nil,
        _ body: (ModelRow) throws -> Void
    ) throws {
        let columns = table.attributes.map(\.name) + table.foreignKeys.map(\.name)
        var page: [ModelRow] = []
        func flush() throws {
            let keys = page.map(\.id)
            for link in table.links {
                let (own, other) = link.ownsLink == false ? ("target", "owner") : ("owner", "target")
                let pairs = try links(link.linkName?.table ?? "", from: own, to: other, among: keys)
                for index in page.indices { page[index].links.append(pairs[page[index].id] ?? []) }
            }
            for row in page { try body(row) }
            page.removeAll(keepingCapacity: true)
        }
        try forEachRow(of: table.entity.name, columns: columns, filter: filter, sort: sort, limit: limit, offset: offset) { key, values in
            page.append(try table.row(key: key, values: values))
            if page.count == PostgresStoreAccess.batchRows { try flush() }
        }
        try flush()
    }
}
