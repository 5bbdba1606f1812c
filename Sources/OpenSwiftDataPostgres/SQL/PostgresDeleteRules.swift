import OpenSwiftData

/// The statements that delete rows with their delete rules applied in SQL, as the SQLite store
/// does: the doomed keys are gathered in a temporary table (numbered by class hierarchy, since
/// keys are unique within one), first the rows a save names, then, wave by wave, the rows their
/// `.cascade` relationships reach; a `.deny` relationship that holds a row that stays stops the
/// save before anything is deleted.
struct PostgresDeleteRules {
    /// The connection's temporary table of doomed keys.
    static let doomedTable = "pg_temp.osd_doomed"
    /// Creates the temporary table on a connection that does not have it yet.
    static let createSQL = "CREATE TEMP TABLE IF NOT EXISTS osd_doomed (h INT4 NOT NULL, k INT8 NOT NULL, wave INT4 NOT NULL DEFAULT 0, PRIMARY KEY (h, k)) ON COMMIT DELETE ROWS"
    /// Empties it: a migration plan's saves share one transaction.
    static let clearSQL = "DELETE FROM \(doomedTable)"
    /// Adds keys (`$2`) of hierarchies (`$1`), at wave 0.
    static let seedKeysSQL = "INSERT INTO \(doomedTable) (h, k) SELECT * FROM unnest($1::int4[], $2::int8[]) ON CONFLICT DO NOTHING"

    /// The number of each class hierarchy, by the name of its root.
    let hierarchies: [String: Int32]
    /// Dooms the rows the last wave's rows (`$2`) reach through `.cascade` relationships, as wave
    /// `$1`; returns how many rows it added. `nil` when no relationship cascades.
    let cascadeSQL: String?
    /// The relationship of each `.deny` check, in the order of `denySQL`.
    let denyChecks: [(entity: Schema.Entity, link: RelationshipLink)]
    /// Returns the position of the first `.deny` relationship that holds a row that stays, or no
    /// row. `nil` when no relationship denies.
    let denySQL: String?
    /// Deletes the doomed rows of every table; returns each one's entity position and key.
    let deleteSQL: String
    /// The entities of `deleteSQL`'s positions.
    let deletedEntities: [Schema.Entity]

    init(tables: [String: PostgresTable]) {
        let ordered = tables.values.sorted { $0.table < $1.table }
        let roots = Set(ordered.map(\.entity.root.name)).sorted()
        let hierarchies = Dictionary(uniqueKeysWithValues: roots.enumerated().map { ($1, Int32($0)) })
        self.hierarchies = hierarchies
        func doomed(_ entity: Schema.Entity, lastWave: Bool = false) -> String {
            "(SELECT k FROM \(Self.doomedTable) WHERE h = \(hierarchies[entity.root.name] ?? -1)\(lastWave ? " AND wave = $2" : ""))"
        }
        func destinationTables(_ link: RelationshipLink) -> [PostgresTable] {
            guard let destination = tables[link.destinationName]?.entity else { return [] }
            return ([destination] + destination.descendants).compactMap { tables[$0.name] }
        }
        var cascades: [String] = []
        var denials: [(entity: Schema.Entity, link: RelationshipLink, sql: String)] = []
        for table in ordered {
            for (property, link) in table.entity.links.sorted(by: { $0.key < $1.key }) {
                guard let destination = tables[link.destinationName]?.entity else { continue }
                let hierarchy = hierarchies[destination.root.name] ?? -1
                switch link.deleteRule {
                case .cascade:
                    let insert = "INSERT INTO \(Self.doomedTable) (h, k, wave) SELECT \(hierarchy), "
                    let owners = doomed(table.entity, lastWave: true)
                    switch link.storage {
                    case .foreignKey:
                        let column = table.column(property)
                        cascades.append(insert + "\(column), $1 FROM \(table.table) WHERE \(column) IS NOT NULL AND \(PostgresSQL.primaryKey) IN \(owners)")
                    case .inverseForeignKey:
                        guard let inverse = link.inverse else { continue }
                        for other in destinationTables(link) {
                            cascades.append(insert + "\(PostgresSQL.primaryKey), $1 FROM \(other.table) WHERE \(other.column(inverse)) IN \(owners)")
                        }
                    case .link(let name, let ownerIsSource):
                        let (own, target) = ownerIsSource ? ("owner", "target") : ("target", "owner")
                        cascades.append(insert + "\(target), $1 FROM \(table.linkTable(name)) WHERE \(own) IN \(owners)")
                    }
                case .deny:
                    let owners = doomed(table.entity)
                    let staying = "NOT IN \(doomed(destination))"
                    switch link.storage {
                    case .foreignKey:
                        let column = table.column(property)
                        denials.append((table.entity, link, "SELECT 1 FROM \(table.table) WHERE \(PostgresSQL.primaryKey) IN \(owners) AND \(column) IS NOT NULL AND \(column) \(staying)"))
                    case .inverseForeignKey:
                        guard let inverse = link.inverse else { continue }
                        for other in destinationTables(link) {
                            denials.append((table.entity, link, "SELECT 1 FROM \(other.table) WHERE \(other.column(inverse)) IN \(owners) AND \(PostgresSQL.primaryKey) \(staying)"))
                        }
                    case .link(let name, let ownerIsSource):
                        let (own, target) = ownerIsSource ? ("owner", "target") : ("target", "owner")
                        denials.append((table.entity, link, "SELECT 1 FROM \(table.linkTable(name)) WHERE \(own) IN \(owners) AND \(target) \(staying)"))
                    }
                default:
                    continue
                }
            }
        }
        // One statement per wave: each relationship's insert is a CTE of its own.
        self.cascadeSQL = cascades.isEmpty ? nil
            : "WITH " + cascades.enumerated().map { "c\($0) AS (\($1) ON CONFLICT DO NOTHING RETURNING 1)" }.joined(separator: ", ")
                + " SELECT " + cascades.indices.map { "(SELECT count(*) FROM c\($0))" }.joined(separator: " + ")
        self.denyChecks = denials.map { ($0.entity, $0.link) }
        self.denySQL = denials.isEmpty ? nil
            : denials.enumerated().map { "SELECT \($0)::int8 WHERE EXISTS (\($1.sql))" }.joined(separator: " UNION ALL ") + " LIMIT 1"
        self.deletedEntities = ordered.map(\.entity)
        self.deleteSQL = "WITH " + ordered.enumerated().map { position, table in
            "d\(position) AS (DELETE FROM \(table.table) WHERE \(PostgresSQL.primaryKey) IN \(doomed(table.entity)) RETURNING \(PostgresSQL.primaryKey))"
        }.joined(separator: ", ") + " " + ordered.indices.map { "SELECT \($0)::int8, \(PostgresSQL.primaryKey) FROM d\($0)" }.joined(separator: " UNION ALL ")
    }

    /// Dooms the rows of an entity's table that a condition (on `t0`) selects.
    func seedSQL(_ table: PostgresTable, condition: String) -> String {
        "INSERT INTO \(Self.doomedTable) (h, k) SELECT \(hierarchies[table.entity.root.name] ?? -1), t0.\(PostgresSQL.primaryKey) FROM \(table.table) AS t0\(condition) ON CONFLICT DO NOTHING"
    }

    /// The doomed keys of an entity's hierarchy, as a subquery.
    func doomed(_ entity: Schema.Entity) -> String {
        "(SELECT k FROM \(Self.doomedTable) WHERE h = \(hierarchies[entity.root.name] ?? -1))"
    }
}
