/// The names the built-in stores keep for themselves, and the check that no model takes one.
///
/// Every table is keyed by a column named `_pk`, and a property's column is named after the
/// property. In SQLite, names are also compared without regard to case, so two properties whose
/// names differ only in case (`url` and `URL`) would need the same column, and tables named
/// `sqlite_…` are SQLite's own; the stores' own tables start with `osd_`.
package enum ReservedNames {
    /// The primary-key column of every table.
    package static let primaryKeyColumn = "_pk"

    /// Throws, naming the model and property, when a model of `schema` cannot be laid out:
    /// a `#Unique` or `#Index` the store cannot hold (``Schema/Entity/declarationProblems``),
    /// a property named like the primary-key column, a model named like a store's own table, or,
    /// when the store compares names without regard to case, two such names of one model.
    package static func check(_ schema: Schema, caseInsensitive: Bool) throws {
        func key(_ name: String) -> String { caseInsensitive ? name.lowercased() : name }
        for entity in schema.entities {
            if let problem = entity.declarationProblems.first {
                throw SwiftDataError(.loadIssueModelContainer, reason: problem)
            }
            let entityKey = entity.name.lowercased()
            if entityKey.hasPrefix("osd_") || (caseInsensitive && entityKey.hasPrefix("sqlite_")) {
                throw SwiftDataError(.loadIssueModelContainer, reason: "The model \(entity.name) has a name the store keeps for its own tables (osd_…\(caseInsensitive ? ", sqlite_…" : "")); rename the class")
            }
            var seen: [String: String] = [key(primaryKeyColumn): primaryKeyColumn]
            for field in entity.fields where field.hasColumn {
                if let earlier = seen.updateValue(field.name, forKey: key(field.name)) {
                    let clash = earlier == primaryKeyColumn
                        ? "the store keys every table by a column named \(primaryKeyColumn)"
                        : "the store compares column names without regard to case, and \(entity.name).\(earlier) has the same name"
                    throw SwiftDataError(.loadIssueModelContainer, reason: "\(entity.name).\(field.name) cannot be stored: \(clash); rename the property")
                }
            }
        }
    }
}
