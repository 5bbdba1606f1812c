import OpenSwiftData

/// `osd verify`: whether a store is sound: SQLite's integrity check, every relationship pointing
/// at a row that exists, and the tables matching the schema the file records.
package struct StoreVerifier {
    package var path: String

    package init(path: String) {
        self.path = path
    }

    /// The problems found; empty when the store is sound.
    package func problems() throws -> [String] {
        let file = try StoreFile(path: path)
        var problems = try file.integrityProblems().map { "integrity check: \($0)" }
        guard problems.isEmpty else { return problems }
        let schema = file.schema
        var columns: [String: Set<String>] = [:]
        for (type, name) in try file.schemaObjects() where type == "table" {
            columns[name] = Set(try file.rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).compactMap { row in
                if case .text(let column) = row[0] { return column }
                return nil
            })
        }
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
        guard problems.isEmpty else { return problems }
        for entity in schema.entities {
            let table = StoreFile.quote(entity.name)
            for relationship in entity.foreignKeys {
                let targets = targetsSubquery(relationship.destination, in: schema)
                let column = StoreFile.quote(relationship.name)
                let dangling = try file.integer("SELECT count(*) FROM \(table) WHERE \(column) IS NOT NULL AND \(column) NOT IN (\(targets))") ?? 0
                if dangling > 0 { problems.append("\(dangling) \(entity.name) rows have a \(relationship.name) that does not exist") }
            }
            for relationship in entity.ownedLinks {
                guard let link = relationship.linkName else { continue }
                let linkTable = StoreFile.quote(link.table)
                let (own, other) = relationship.ownsLink == false ? ("target", "owner") : ("owner", "target")
                let owners = targetsSubquery(entity.name, in: schema)
                let targets = targetsSubquery(relationship.destination, in: schema)
                let dangling = try file.integer("SELECT count(*) FROM \(linkTable) WHERE \(own) NOT IN (\(owners)) OR \(other) NOT IN (\(targets))") ?? 0
                if dangling > 0 { problems.append("\(dangling) pairs of \(entity.name).\(relationship.name) refer to rows that do not exist") }
            }
        }
        return problems
    }

    /// The primary keys of a model's rows and its subclasses' rows.
    private func targetsSubquery(_ model: String, in schema: StoredSchema) -> String {
        ([model] + schema.descendants(of: model).map(\.name))
            .map { "SELECT \(StoreFile.primaryKeyColumn) FROM \(StoreFile.quote($0))" }
            .joined(separator: " UNION ALL ")
    }
}
