import OpenSwiftData

extension StoredSchema {
    /// The model named `name`, or an error that lists the store's models.
    func entity(named name: String) throws(ToolError) -> Entity {
        if let entity = entities.first(where: { $0.name == name }) { return entity }
        let names = entities.map(\.name).sorted().joined(separator: ", ")
        throw ToolError("The store has no model named \(name.debugDescription); its models are \(names).")
    }
}

extension StoredSchema.Entity {
    func attribute(named name: String) -> StoredSchema.Attribute? { plainAttributes.first { $0.name == name } }

    func relationship(named name: String) -> StoredSchema.Relationship? { recordedRelationships.first { $0.name == name } }
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
