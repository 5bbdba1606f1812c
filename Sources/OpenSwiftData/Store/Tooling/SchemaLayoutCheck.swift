/// The tables and columns a store's recorded schema needs, checked against those the store has.
package enum SchemaLayoutCheck {
    /// Models without a table, attributes without a column, link tables missing: `columns` holds
    /// the columns of each table the store has, by table name.
    package static func problems(_ schema: StoredSchema, columns: [String: Set<String>]) -> [String] {
        var problems: [String] = []
        for entity in schema.entities {
            guard let present = columns[entity.name] else {
                problems.append("model \(entity.name) has no table")
                continue
            }
            for attribute in entity.attributes where !present.contains(attribute.name) {
                problems.append("\(entity.name).\(attribute.name) has no column")
            }
        }
        for link in schema.links ?? [] where columns[link] == nil {
            problems.append("link table \(link) is missing")
        }
        return problems
    }
}
