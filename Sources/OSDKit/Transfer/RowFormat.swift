import OpenSwiftData

/// How rows are written: one JSON object per line, CSV (RFC 4180), or an aligned table.
enum RowFormat: String, CaseIterable {
    case table, json, csv

    /// A row as one line of JSON: `{"_id":1,"name":"Paris","trip":5,"tags":[1,2]}`.
    static func jsonObject(_ row: ModelRow, of table: ModelTable) -> String {
        var fields = ["\"_id\":\(row.id)"]
        for (attribute, value) in zip(table.attributes, row.attributes) {
            fields.append("\(ValueText.quoted(attribute.name)):\(ValueText.json(value))")
        }
        for (relationship, key) in zip(table.foreignKeys, row.foreignKeys) {
            fields.append("\(ValueText.quoted(relationship.name)):\(key.map(String.init) ?? "null")")
        }
        for (relationship, keys) in zip(table.links, row.links) {
            fields.append("\(ValueText.quoted(relationship.name)):[\(keys.map(String.init).joined(separator: ","))]")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A row's fields as text, in ``ModelTable/fieldNames`` order; nil values empty, to-many as
    /// identifiers separated by spaces.
    static func fields(_ row: ModelRow) -> [String?] {
        [String(row.id)]
            + row.attributes.map { $0 == .null ? nil : ValueText.text($0) }
            + row.foreignKeys.map { $0.map(String.init) }
            + row.links.map { $0.map(String.init).joined(separator: " ") }
    }

    /// A CSV line: fields quoted when they hold a comma, quote, or line break; nil as an empty field.
    static func csvLine(_ fields: [String?]) -> String {
        fields.map { field in
            guard let field else { return "" }
            let needsQuotes = field.isEmpty || field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            return needsQuotes ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }.joined(separator: ",")
    }

    /// Rows as an aligned text table with a header line; nil shown as `nil`.
    static func table(header: [String], rows: [[String?]]) -> String {
        let cells = rows.map { $0.map { ($0 ?? "nil").replacingOccurrences(of: "\n", with: "\\n") } }
        var widths = header.map(\.count)
        for row in cells { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, value in
                value + String(repeating: " ", count: widths[index] - value.count)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + cells.map(line)).joined(separator: "\n")
    }
}
