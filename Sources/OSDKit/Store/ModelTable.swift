import OpenSwiftData

/// One row of a model's table as `osd` shows, exports and imports it: its identifier (the
/// primary key), its attributes, its to-one relationships by identifier, and the to-many
/// relationships whose link table this model owns.
struct ModelRow: Equatable {
    var id: Int64
    var attributes: [TypedValue]
    var foreignKeys: [Int64?]
    var links: [[Int64]]
}

/// A model's table read without the model class, from the schema the store records.
struct ModelTable {
    let entity: StoredSchema.Entity
    let attributes: [StoredSchema.Attribute]
    let foreignKeys: [StoredSchema.Relationship]
    let links: [StoredSchema.Relationship]
    let table: String

    init(_ entity: StoredSchema.Entity) {
        self.entity = entity
        attributes = entity.plainAttributes.filter { $0.isExternal != true } + entity.plainAttributes.filter { $0.isExternal == true }
        foreignKeys = entity.foreignKeys
        links = entity.ownedLinks
        table = StoreFile.quote(entity.name)
    }

    /// The field names in output order: `_id`, the attributes, the to-one and the owned to-many relationships.
    var fieldNames: [String] { ["_id"] + attributes.map(\.name) + foreignKeys.map(\.name) + links.map(\.name) }

    /// Reads the rows that match, in order, each passed to `body`.
    func forEachRow(
        in file: StoreFile, whereClause: String = "", orderBy: String? = nil, arguments: [StoredValue] = [],
        limit: Int? = nil, offset: Int? = nil, includeLinks: Bool = true, _ body: (ModelRow) throws -> Void
    ) throws {
        let columns = [StoreFile.primaryKeyColumn] + (attributes.map(\.name) + foreignKeys.map(\.name)).map(StoreFile.quote)
        var sql = "SELECT \(columns.map { "\(table).\($0)" }.joined(separator: ", ")) FROM \(table)"
        if !whereClause.isEmpty { sql += " WHERE \(whereClause)" }
        sql += orderBy ?? " ORDER BY \(table).\(StoreFile.primaryKeyColumn)"
        if limit != nil || offset != nil { sql += " LIMIT \(limit ?? -1) OFFSET \(offset ?? 0)" }
        let linkQueries = links.map { link -> String in
            let (own, other) = link.ownsLink == false ? ("target", "owner") : ("owner", "target")
            let linkTable = StoreFile.quote(link.linkName?.table ?? "")
            return "SELECT \(other) FROM \(linkTable) WHERE \(own) = ? ORDER BY \(other)"
        }
        try file.forEachRow(sql, arguments) { values in
            guard case .integer(let id) = values[0] else { throw ToolError("\(entity.name) has a row without an integer identifier.") }
            var row = try self.row(key: id, values: values.dropFirst())
            if includeLinks {
                for query in linkQueries {
                    row.links.append(try file.rows(query, [.integer(id)]).compactMap { row in
                        if case .integer(let key) = row.first { return key }
                        return nil
                    })
                }
            }
            try body(row)
        }
    }

    /// A row from its key and its stored attributes and foreign keys, in ``attributes`` then
    /// ``foreignKeys`` order; without links. Throws when a value is not one the attribute's
    /// storage writes.
    func row(key id: Int64, values: some Collection<StoredValue>) throws -> ModelRow {
        var row = ModelRow(id: id, attributes: [], foreignKeys: [], links: [])
        var values = values.makeIterator()
        for attribute in attributes {
            let stored = values.next() ?? .null
            guard let value = attribute.decode(stored) else {
                throw ToolError("\(entity.name) row \(id): the stored value of \(attribute.name) is not a \(StoredSchema.Entity.baseType(of: attribute)) (\(stored)).")
            }
            row.attributes.append(value)
        }
        for _ in foreignKeys {
            if case .integer(let key)? = values.next() { row.foreignKeys.append(key) } else { row.foreignKeys.append(nil) }
        }
        return row
    }

    /// The number of rows that match.
    func count(in file: StoreFile, whereClause: String = "", arguments: [StoredValue] = []) throws -> Int64 {
        try file.integer("SELECT count(*) FROM \(table)\(whereClause.isEmpty ? "" : " WHERE \(whereClause)")", arguments) ?? 0
    }
}
