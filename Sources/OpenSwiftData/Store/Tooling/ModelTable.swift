/// One row of a model's table as `osd` shows, exports and imports it: its identifier (the
/// primary key), its attributes, its to-one relationships by identifier, and the to-many
/// relationships whose link table this model owns.
package struct ModelRow: Equatable, Sendable {
    package var id: Int64
    package var attributes: [TypedValue]
    package var foreignKeys: [Int64?]
    package var links: [[Int64]]

    package init(id: Int64, attributes: [TypedValue], foreignKeys: [Int64?], links: [[Int64]]) {
        self.id = id
        self.attributes = attributes
        self.foreignKeys = foreignKeys
        self.links = links
    }
}

/// A model's table read without the model class, from the schema the store records.
package struct ModelTable: Sendable {
    package let entity: StoredSchema.Entity
    /// The attributes in row order: those stored in the row first, then those stored beside it.
    package let attributes: [StoredSchema.Attribute]
    /// The to-one relationships the table holds a foreign key for.
    package let foreignKeys: [StoredSchema.Relationship]
    /// The to-many relationships whose link table this model owns.
    package let links: [StoredSchema.Relationship]

    package init(_ entity: StoredSchema.Entity) {
        self.entity = entity
        attributes = entity.plainAttributes.filter { $0.isExternal != true } + entity.plainAttributes.filter { $0.isExternal == true }
        foreignKeys = entity.foreignKeys
        links = entity.ownedLinks
    }

    /// The field names in output order: `_id`, the attributes, the to-one and the owned to-many relationships.
    package var fieldNames: [String] { ["_id"] + attributes.map(\.name) + foreignKeys.map(\.name) + links.map(\.name) }

    /// A row from its key and its stored attributes and foreign keys, in ``attributes`` then
    /// ``foreignKeys`` order; without links. Throws when a value is not one the attribute's
    /// storage writes.
    package func row(key id: Int64, values: some Collection<StoredValue>) throws -> ModelRow {
        var row = ModelRow(id: id, attributes: [], foreignKeys: [], links: [])
        var values = values.makeIterator()
        for attribute in attributes {
            let stored = values.next() ?? .null
            guard let value = attribute.decode(stored) else {
                throw SwiftDataError(.storeIsCorrupt, reason: "\(entity.name) row \(id): the stored value of \(attribute.name) is not a \(StoredSchema.Entity.baseType(of: attribute)) (\(stored)).")
            }
            row.attributes.append(value)
        }
        for _ in foreignKeys {
            if case .integer(let key)? = values.next() { row.foreignKeys.append(key) } else { row.foreignKeys.append(nil) }
        }
        return row
    }
}
