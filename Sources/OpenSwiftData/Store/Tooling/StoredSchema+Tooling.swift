extension StoredSchema {
    /// The root of the class hierarchy the model `name` belongs to: itself outside hierarchies.
    package func root(of name: String) -> String {
        var current = name
        while let parent = entities.first(where: { $0.name == current })?.superentity { current = parent }
        return current
    }

    /// The root of the class hierarchy the model `name` belongs to, or `nil` outside hierarchies.
    package func hierarchyRoot(of name: String) -> String? {
        let root = root(of: name)
        return root != name || entities.contains { $0.superentity == name } ? root : nil
    }

    /// The models that inherit from `name`, directly or not.
    package func descendants(of name: String) -> [Entity] {
        entities.filter { entity in
            var parent = entity.superentity
            while let current = parent {
                if current == name { return true }
                parent = entities.first { $0.name == current }?.superentity
            }
            return false
        }
    }
}

extension StoredSchema.Entity {
    /// The relationships the store records (none for records that predate them).
    package var recordedRelationships: [StoredSchema.Relationship] { relationships ?? [] }

    /// The attributes proper: the columns that are not a to-one relationship's foreign key.
    package var plainAttributes: [StoredSchema.Attribute] {
        let keys = Set(recordedRelationships.filter { $0.storage == "column" }.map(\.name))
        return attributes.filter { !keys.contains($0.name) }
    }

    /// The to-one relationships whose foreign key is a column of this model's table.
    package var foreignKeys: [StoredSchema.Relationship] { recordedRelationships.filter { $0.storage == "column" } }

    /// The to-many relationships whose pairs this model's side owns in a link table.
    package var ownedLinks: [StoredSchema.Relationship] { recordedRelationships.filter { $0.storage == "link" && $0.ownsLink == true } }

    /// The Swift type of an attribute, without a trailing `?`, as recorded or as its storage implies.
    package static func baseType(of attribute: StoredSchema.Attribute) -> String {
        if let type = attribute.type { return type.hasSuffix("?") ? String(type.dropLast()) : type }
        return switch attribute.storage {
        case .integer: "Int"
        case .unsignedInteger: "UInt64"
        case .real: "Double"
        case .date: "Date"
        case .text: "String"
        case .blob: "Data"
        case .uuid: "UUID"
        case .decimal: "Decimal"
        case .json: "JSON"
        }
    }
}
