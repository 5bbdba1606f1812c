/// `osd diagram`: the schema as a Mermaid `erDiagram`: each model with its attributes (type,
/// `UK` for unique ones, `FK` for to-one relationships' keys, "optional" as a comment), and one
/// line per relationship, or per pair of inverse relationships, with both cardinalities.
package struct MermaidDiagram {
    package var schema: SchemaDocument

    package init(schema: SchemaDocument) {
        self.schema = schema
    }

    package func source() -> String {
        var lines = ["erDiagram"]
        for model in schema.models {
            lines.append("    \(model.name) {")
            for attribute in model.attributes {
                var line = "        \(mermaidType(attribute.baseType)) \(attribute.name)"
                if attribute.unique == true { line += " UK" }
                if attribute.isOptional { line += " \"optional\"" }
                lines.append(line)
            }
            for relationship in model.relationships where !relationship.isToMany && !isKeyless(relationship, of: model) {
                lines.append("        \(relationship.destination) \(relationship.name) FK")
            }
            lines.append("    }")
        }
        var drawn: Set<String> = []
        for model in schema.models {
            for relationship in model.relationships {
                let inverse = relationship.inverse.flatMap { name in
                    schema.model(named: relationship.destination)?.relationships.first { $0.name == name }
                }
                let key = [model.name + "." + relationship.name, relationship.destination + "." + (inverse?.name ?? "")].sorted().joined(separator: "|")
                guard inverse == nil || drawn.insert(key).inserted else { continue }
                // Left: how many of this model one destination relates to; right: the reverse.
                let left = inverse.map { $0.isToMany ? "}o" : "|o" } ?? "}o"
                let right = relationship.isToMany ? "o{" : "o|"
                let label = inverse.map { "\(relationship.name) / \($0.name)" } ?? relationship.name
                lines.append("    \(model.name) \(left)--\(right) \(relationship.destination) : \"\(label)\"")
            }
            if let superclass = model.superclass {
                lines.append("    \(superclass) ||--o| \(model.name) : \"inherits\"")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The side of a one-to-one pair that the store keeps no key for (the second by name).
    private func isKeyless(_ relationship: SchemaDocument.Relationship, of model: SchemaDocument.Model) -> Bool {
        guard let inverseName = relationship.inverse,
              let inverse = schema.model(named: relationship.destination)?.relationships.first(where: { $0.name == inverseName }),
              !inverse.isToMany
        else { return false }
        return (relationship.destination, inverseName) < (model.name, relationship.name)
    }

    /// A type as Mermaid accepts it: letters, digits, `_`, `-`, `[]`.
    /// Anything else (`Trip.Status`, `Box<Int>`, `Tag?` inside a collection) becomes `-`.
    private func mermaidType(_ type: String) -> String {
        let spelled: String
        if type.hasPrefix("["), type.hasSuffix("]") {
            let inner = type.dropFirst().dropLast()
            if inner.contains(":") {
                let parts = inner.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
                spelled = "Dictionary-\(parts.joined(separator: "-"))"
            } else {
                spelled = "\(inner)[]"
            }
        } else if type.hasPrefix("Set<") {
            spelled = "Set-\(type.dropFirst(4).dropLast())"
        } else {
            spelled = type
        }
        return String(spelled.map { $0.isLetter || $0.isNumber || "_-[]".contains($0) ? $0 : "-" })
    }
}
