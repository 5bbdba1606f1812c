import OpenSwiftData

extension StoredSchema {
    /// The model named `name`, or an error that lists the store's models.
    func entity(named name: String) throws(ToolError) -> Entity {
        if let entity = entities.first(where: { $0.name == name }) { return entity }
        let names = entities.map(\.name).sorted().joined(separator: ", ")
        throw ToolError("The store has no model named \(name.debugDescription); its models are \(names).")
    }

    /// The root of the class hierarchy the model `name` belongs to: itself outside hierarchies.
    func root(of name: String) -> String {
        var current = name
        while let parent = entities.first(where: { $0.name == current })?.superentity { current = parent }
        return current
    }

    /// The root of the class hierarchy the model `name` belongs to, or `nil` outside hierarchies.
    func hierarchyRoot(of name: String) -> String? {
        let root = root(of: name)
        return root != name || entities.contains { $0.superentity == name } ? root : nil
    }

    /// The models that inherit from `name`, directly or not.
    func descendants(of name: String) -> [Entity] {
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
    var recordedRelationships: [StoredSchema.Relationship] { relationships ?? [] }

    /// The attributes proper: the columns that are not a to-one relationship's foreign key.
    var plainAttributes: [StoredSchema.Attribute] {
        let keys = Set(recordedRelationships.filter { $0.storage == "column" }.map(\.name))
        return attributes.filter { !keys.contains($0.name) }
    }

    /// The to-one relationships whose foreign key is a column of this model's table.
    var foreignKeys: [StoredSchema.Relationship] { recordedRelationships.filter { $0.storage == "column" } }

    /// The to-many relationships whose pairs this model's side owns in a link table.
    var ownedLinks: [StoredSchema.Relationship] { recordedRelationships.filter { $0.storage == "link" && $0.ownsLink == true } }

    func attribute(named name: String) -> StoredSchema.Attribute? { plainAttributes.first { $0.name == name } }

    func relationship(named name: String) -> StoredSchema.Relationship? { recordedRelationships.first { $0.name == name } }

    /// The Swift type of an attribute, without a trailing `?`, as recorded or as its storage implies.
    static func baseType(of attribute: StoredSchema.Attribute) -> String {
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

/// Suggests the closest of `candidates` to a misspelt `name`, for messages.
func suggestion(for name: String, among candidates: [String]) -> String {
    func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
    guard let best = candidates.min(by: { distance(name, $0) < distance(name, $1) }),
          distance(name, best) <= max(2, name.count / 3)
    else { return "" }
    return " (did you mean \(best)?)"
}
