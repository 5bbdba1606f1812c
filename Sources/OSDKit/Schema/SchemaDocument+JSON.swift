extension SchemaDocument {
    /// The schema as JSON in the brief's layout: keys in a fixed order, one line per attribute
    /// and relationship, so that files diff well and golden files stay stable.
    package func json() -> String {
        var lines = ["{", "  \"models\": ["]
        for (index, model) in models.enumerated() {
            lines.append("    {")
            var fields = ["      \"name\": \(ValueText.quoted(model.name))"]
            if let superclass = model.superclass { fields.append("      \"superclass\": \(ValueText.quoted(superclass))") }
            fields.append(list("attributes", model.attributes.map(attribute)))
            fields.append(list("relationships", model.relationships.map(relationship)))
            if let unique = model.unique { fields.append("      \"unique\": \(names(unique))") }
            if let indexes = model.indexes { fields.append("      \"indexes\": \(names(indexes))") }
            lines.append(fields.joined(separator: ",\n"))
            lines.append("    }" + (index < models.count - 1 ? "," : ""))
        }
        lines += ["  ]", "}"]
        return lines.joined(separator: "\n")
    }

    private func list(_ key: String, _ items: [String]) -> String {
        guard !items.isEmpty else { return "      \"\(key)\": []" }
        return "      \"\(key)\": [\n" + items.map { "        " + $0 }.joined(separator: ",\n") + "\n      ]"
    }

    private func names(_ lists: [[String]]) -> String {
        "[" + lists.map { "[" + $0.map(ValueText.quoted).joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
    }

    private func object(_ pairs: [(String, String?)]) -> String {
        "{" + pairs.compactMap { key, value in value.map { "\"\(key)\": \($0)" } }.joined(separator: ", ") + "}"
    }

    private func attribute(_ attribute: Attribute) -> String {
        object([
            ("name", ValueText.quoted(attribute.name)),
            ("type", ValueText.quoted(attribute.type)),
            ("optional", attribute.optional.map { "\($0)" }),
            ("unique", attribute.unique.map { "\($0)" }),
            ("indexed", attribute.indexed.map { "\($0)" }),
            ("default", attribute.default.map(json)),
            ("originalName", attribute.originalName.map(ValueText.quoted)),
            ("externalStorage", attribute.externalStorage.map { "\($0)" }),
            ("codable", attribute.codable.map { "\($0)" }),
            ("transformer", attribute.transformer.map(ValueText.quoted)),
            ("transformerName", attribute.transformerName.map(ValueText.quoted)),
            ("hasDefault", attribute.hasDefault.map { "\($0)" }),
        ])
    }

    private func relationship(_ relationship: Relationship) -> String {
        object([
            ("name", ValueText.quoted(relationship.name)),
            ("destination", ValueText.quoted(relationship.destination)),
            ("toMany", relationship.toMany.map { "\($0)" }),
            ("deleteRule", relationship.deleteRule.map(ValueText.quoted)),
            ("inverse", relationship.inverse.map(ValueText.quoted)),
            ("originalName", relationship.originalName.map(ValueText.quoted)),
        ])
    }

    private func json(_ value: DefaultValue) -> String {
        switch value {
        case .string(let text): ValueText.quoted(text)
        case .integer(let number): String(number)
        case .number(let number): "\(number)"
        case .boolean(let flag): "\(flag)"
        }
    }
}
