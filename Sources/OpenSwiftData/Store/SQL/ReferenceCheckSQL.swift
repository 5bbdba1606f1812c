/// The queries that find relationships naming rows that do not exist, in the SQL SQLite and
/// PostgreSQL share: each counts the foreign keys or link-table pairs of one relationship whose
/// target is in no table of the destination's class hierarchy.
package enum ReferenceCheckSQL {
    /// One check: the query (a `SELECT count(*)`) and the problem to report with the count.
    package struct Check {
        package let sql: String
        package let problem: (Int64) -> String
    }

    /// The checks for every relationship the schema records. `table` quotes (and qualifies) a
    /// table's name, `quote` a column's; `primaryKey` is the quoted key column of every model's table.
    package static func checks(_ schema: StoredSchema, table: (String) -> String, quote: (String) -> String, primaryKey: String) -> [Check] {
        /// The primary keys of a model's rows and its subclasses' rows.
        func keys(_ model: String) -> String {
            ([model] + schema.descendants(of: model).map(\.name))
                .map { "SELECT \(primaryKey) FROM \(table($0))" }
                .joined(separator: " UNION ALL ")
        }
        var checks: [Check] = []
        for entity in schema.entities {
            for relationship in entity.foreignKeys {
                let column = quote(relationship.name)
                checks.append(Check(
                    sql: "SELECT count(*) FROM \(table(entity.name)) WHERE \(column) IS NOT NULL AND \(column) NOT IN (\(keys(relationship.destination)))",
                    problem: { "\($0) \(entity.name) rows have a \(relationship.name) that does not exist" }))
            }
            for relationship in entity.ownedLinks {
                guard let link = relationship.linkName else { continue }
                let (own, other) = relationship.ownsLink == false ? ("target", "owner") : ("owner", "target")
                checks.append(Check(
                    sql: "SELECT count(*) FROM \(table(link.table)) WHERE \(own) NOT IN (\(keys(entity.name))) OR \(other) NOT IN (\(keys(relationship.destination)))",
                    problem: { "\($0) pairs of \(entity.name).\(relationship.name) refer to rows that do not exist" }))
            }
        }
        return checks
    }

    /// The problems the checks find, running each with `count`.
    package static func problems(
        _ schema: StoredSchema, table: (String) -> String, quote: (String) -> String, primaryKey: String, count: (String) throws -> Int64
    ) throws -> [String] {
        try checks(schema, table: table, quote: quote, primaryKey: primaryKey).compactMap { check in
            let dangling = try count(check.sql)
            return dangling > 0 ? check.problem(dangling) : nil
        }
    }
}
