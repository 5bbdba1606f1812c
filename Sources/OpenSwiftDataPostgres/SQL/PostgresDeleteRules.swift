import OpenSwiftData

/// How the rows of one table are deleted with their delete rules applied in SQL: what a delete
/// returns, and where each `.cascade` and `.deny` relationship leads.
///
/// The store deletes in waves: the rows a save names, then the rows their `.cascade`
/// relationships reach, then the rows those reach, each wave a `DELETE … RETURNING` per table with
/// the keys of the last wave bound as an array. `.deny` relationships are checked once everything
/// is deleted, inside the same transaction: a doomed row's denying relationship that still leads
/// to a row that exists stops the save, and the transaction rolls back.
struct PostgresDeleteRules {
    /// A relationship whose rule reaches other rows.
    struct Edge {
        let link: RelationshipLink
        /// How to select the destination rows the deleted rows reach.
        let reach: Reach
        /// The tables of the destination: its own and its subclasses'.
        let destinations: [PostgresTable]

        /// The condition (on `t0`) that selects, in each destination table, the rows the edge
        /// reaches from the keys or column values bound as `$1`.
        var condition: String {
            switch reach {
            case .ownColumn:
                "t0.\(PostgresSQL.primaryKey) = ANY($1::int8[])"
            case .inverseColumn(let column):
                "t0.\(column) = ANY($1::int8[])"
            case .linkTable(let table, let own, let other):
                "t0.\(PostgresSQL.primaryKey) IN (SELECT \(other) FROM \(table) WHERE \(own) = ANY($1::int8[]))"
            }
        }

        /// Whether the rows it reaches are found from the deleted rows' keys alone.
        var isByKey: Bool {
            if case .ownColumn = reach { return false }
            return true
        }
    }

    /// How the rows a relationship reaches are found.
    enum Reach {
        /// The deleted row's own column: the returned column at this position holds the key.
        case ownColumn(position: Int)
        /// The destination's column (named) points back at the deleted row.
        case inverseColumn(String)
        /// Pairs in a link table: the deleted row's key in `own`, the destination's in `other`.
        case linkTable(table: String, own: String, other: String)
    }

    /// What a delete of the table returns: its key, then the column of each relationship reached
    /// through the deleted row's own column, then the preserved attributes.
    let returning: String
    /// Whether a delete returns the key alone (no relationship column, no preserved attribute).
    var returnsKeysOnly: Bool { cascades.allSatisfy(\.isByKey) && denials.allSatisfy(\.isByKey) && preserved.isEmpty }
    /// The `.cascade` relationships.
    let cascades: [Edge]
    /// The `.deny` relationships.
    let denials: [Edge]
    /// The attributes kept in the history when a row is deleted, and the returned column of each.
    let preserved: [(attribute: Int, position: Int)]

    init(table: PostgresTable, tables: [String: PostgresTable]) {
        var returned = [PostgresSQL.primaryKey]
        var cascades: [Edge] = []
        var denials: [Edge] = []
        for (property, link) in table.entity.links.sorted(by: { $0.key < $1.key }) where link.deleteRule == .cascade || link.deleteRule == .deny {
            guard let destination = tables[link.destinationName]?.entity else { continue }
            let destinations = ([destination] + destination.descendants).compactMap { tables[$0.name] }
            let reach: Reach
            switch link.storage {
            case .foreignKey:
                reach = .ownColumn(position: returned.count)
                returned.append(table.column(property))
            case .inverseForeignKey:
                guard let inverse = link.inverse, let column = destinations.first?.column(inverse) else { continue }
                reach = .inverseColumn(column)
            case .link(let name, let ownerIsSource):
                reach = .linkTable(table: table.linkTable(name), own: ownerIsSource ? "owner" : "target", other: ownerIsSource ? "target" : "owner")
            }
            let edge = Edge(link: link, reach: reach, destinations: destinations)
            if link.deleteRule == .cascade { cascades.append(edge) } else { denials.append(edge) }
        }
        var preserved: [(attribute: Int, position: Int)] = []
        for index in table.entity.fields.indices where table.columns[index] != nil
            && table.entity.fields[index].attribute?.options.contains(.preserveValueOnDeletion) == true {
            preserved.append((index, returned.count))
            returned.append(table.column(index))
        }
        self.returning = returned.joined(separator: ", ")
        self.cascades = cascades
        self.denials = denials
        self.preserved = preserved
    }

    /// A query that returns a row when a `.deny` edge of deleted rows (keys or column values bound
    /// as `$1`) still leads to a row that exists.
    static func denyCheck(_ edge: Edge) -> String {
        let exists = edge.destinations.map { "SELECT 1 FROM \($0.table) AS d WHERE " }
        switch edge.reach {
        case .ownColumn:
            return exists.map { $0 + "d.\(PostgresSQL.primaryKey) = ANY($1::int8[])" }.joined(separator: " UNION ALL ") + " LIMIT 1"
        case .inverseColumn(let column):
            return exists.map { $0 + "d.\(column) = ANY($1::int8[])" }.joined(separator: " UNION ALL ") + " LIMIT 1"
        case .linkTable(let table, let own, let other):
            return exists.map { $0 + "d.\(PostgresSQL.primaryKey) IN (SELECT \(other) FROM \(table) WHERE \(own) = ANY($1::int8[]))" }
                .joined(separator: " UNION ALL ") + " LIMIT 1"
        }
    }
}
