/// Deletions by predicate of models with `.cascade` and `.deny` relationships, in SQL: the rows to
/// delete are gathered in temporary tables, one per class hierarchy (the predicate's rows, then, through chains, the rows
/// their `.cascade` relationships reach), a `.deny` relationship that still holds a row that stays
/// throws before anything is deleted, and every table loses its doomed rows in one statement, with
/// references to them (`.nullify`, link tables) removed in one statement each.
extension SQLiteStore {
    /// The rows a save deletes by rule, per entity.
    struct RuleDeletion {
        /// The deleted keys of each entity that lost rows, in schema order.
        var deleted: [(entity: Schema.Entity, keys: [Int64])] = []
    }

    /// The temporary table of the doomed keys of a class hierarchy (keys are unique within one).
    static func doomedTable(root: String) -> String { "temp.\(SQL.quote("osd_doomed_\(root)"))" }

    /// Deletes the rows the batch deletes select and the rows `changes.deletes` names, applying
    /// the delete rules of every doomed row. Runs inside the save's transaction, before its other
    /// writes; throws (and the save rolls back) when a `.deny` rule blocks.
    func deleteApplyingRules(_ changes: StoreChanges, history: inout HistoryLog, on connection: SQLiteConnection) throws -> RuleDeletion {
        let plan = deleteRuleStatements
        for root in plan.roots {
            let table = Self.doomedTable(root: root)
            try connection.statement("CREATE TEMP TABLE IF NOT EXISTS \(table) (k INTEGER PRIMARY KEY, wave INTEGER NOT NULL DEFAULT 0)").run()
            try connection.statement("DELETE FROM \(table)").run()
        }
        // The rows the predicates select, and the models deleted one by one. Only the hierarchies
        // that get doomed rows are visited after this.
        var touched: Set<String> = []
        for (entity, filter) in changes.batchDeletes {
            let layout = try self.layout(for: entity.name)
            var compiler = SQLCompiler(layout: layout)
            let condition = filter.map { " WHERE " + compiler.sql($0) } ?? ""
            let seed = try connection.statement("INSERT OR IGNORE INTO \(Self.doomedTable(root: entity.root.name)) (k) SELECT \(TableLayout.primaryKey) FROM \(layout.table)\(condition)")
            try seed.bind(compiler.arguments)
            try seed.run()
            seed.reset()
            if connection.changes > 0 { touched.insert(entity.root.name) }
        }
        for (entity, key) in changes.deletes {
            let seed = try connection.statement("INSERT OR IGNORE INTO \(Self.doomedTable(root: entity.root.name)) (k) VALUES (?)")
            try seed.bind([.integer(key)])
            try seed.run()
            seed.reset()
            touched.insert(entity.root.name)
        }
        try cascade(plan.cascades, touched: &touched, on: connection)
        try checkDenyRules(plan.denials, touched: touched, on: connection)
        var result = RuleDeletion()
        for entity in schema.entities where touched.contains(entity.root.name) {
            let layout = try self.layout(for: entity.name)
            let doomed = Self.doomed(entity)
            let preserved: [Int64: [String: SnapshotValue]]
            if changes.recordsHistory, !layout.preservedAttributes.isEmpty {
                let select = try connection.statement("\(layout.selectPrefix(attributes: layout.preservedAttributes)) WHERE \(TableLayout.primaryKey) IN \(doomed)")
                defer { select.reset() }
                preserved = try layout.preservedValues(from: select, attributes: layout.preservedAttributes)
            } else {
                preserved = [:]
            }
            let delete = try connection.statement("DELETE FROM \(layout.table) WHERE \(TableLayout.primaryKey) IN \(doomed)")
            let keys = try connection.collectingDeletedRowIDs { try delete.run() }
            delete.reset()
            guard !keys.isEmpty else { continue }
            result.deleted.append((entity, keys))
            if changes.recordsHistory {
                history.delete(entity, keys: keys, preserved: preserved)
            }
        }
        // References to the deleted rows, from rows that stay: one statement per foreign key and link table.
        for entity in schema.entities where result.deleted.contains(where: { $0.entity === entity }) {
            for cleanup in setReferenceCleanup[entity.name] ?? [] {
                let statement = try connection.statement(cleanup.sql)
                try Self.run(cleanup, history: &history, recordsHistory: changes.recordsHistory, on: connection) { try statement.run() }
            }
        }
        return result
    }

    /// Adds to the doomed rows what their `.cascade` relationships reach, in waves: each pass
    /// follows the rows the previous one added (the seed is wave 0), until a pass adds nothing.
    /// A relationship is followed only from hierarchies that have doomed rows (`touched`), and
    /// the hierarchies it adds rows to join them.
    private func cascade(_ cascades: [DeleteRuleStatements.Cascade], touched: inout Set<String>, on connection: SQLiteConnection) throws {
        guard !cascades.isEmpty else { return }
        var wave: Int64 = 0
        var added = true
        while added {
            added = false
            for cascade in cascades where touched.contains(cascade.ownerRoot) {
                let statement = try connection.statement(cascade.sql)
                try statement.bind([.integer(wave + 1), .integer(wave)])
                try statement.run()
                statement.reset()
                if connection.changes > 0 {
                    added = true
                    touched.insert(cascade.destinationRoot)
                }
            }
            wave += 1
        }
    }

    /// Throws when a doomed row's `.deny` relationship holds a row that is not doomed.
    private func checkDenyRules(_ denials: [DeleteRuleStatements.Denial], touched: Set<String>, on connection: SQLiteConnection) throws {
        for denial in denials where touched.contains(denial.entity.root.name) {
            let check = try connection.statement(denial.sql)
            defer { check.reset() }
            if try check.step() {
                let (entity, link) = (denial.entity, denial.link)
                throw SwiftDataError(.modelValidationFailure, reason: "\(entity.name).\(link.name) has the delete rule .deny and still holds a \(link.destinationName): delete or unlink the related models first. Nothing was saved; the context keeps its changes.")
            }
        }
    }

    /// The rows of a model's hierarchy that are doomed, as SQL; with `lastWave`, only those the
    /// previous cascade pass added (its number bound as the statement's second parameter).
    static func doomed(_ entity: Schema.Entity, lastWave: Bool = false) -> String {
        let table = doomedTable(root: entity.root.name)
        return lastWave ? "(SELECT k FROM \(table) WHERE wave = ?2)" : "(SELECT k FROM \(table))"
    }

    /// The tables that hold rows of a relationship's destination: its own and its subclasses'.
    private static func destinationTables(_ link: RelationshipLink, in layouts: [String: TableLayout]) -> [TableLayout] {
        guard let destination = layouts[link.destinationName] else { return [] }
        return destination.entity.concreteEntities.compactMap { layouts[$0.name] }
    }

    /// One statement per `.cascade` relationship: the related rows of the rows the last pass doomed
    /// become doomed, in the next wave (parameter 1; the last wave is parameter 2).
    static func cascadeStatements(_ layouts: [String: TableLayout]) -> [DeleteRuleStatements.Cascade] {
        var statements: [DeleteRuleStatements.Cascade] = []
        for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
            for (property, link) in layout.links.sorted(by: { $0.key < $1.key }) where link.deleteRule == .cascade {
                guard let destination = layouts[link.destinationName]?.entity else { continue }
                let insert = "INSERT OR IGNORE INTO \(Self.doomedTable(root: destination.root.name)) (k, wave) SELECT "
                let owners = Self.doomed(layout.entity, lastWave: true)
                switch link.storage {
                case .foreignKey:
                    let column = layout.column(property)
                    statements.append(.init(sql: insert + "\(column), ?1 FROM \(layout.table) WHERE \(column) IS NOT NULL AND \(TableLayout.primaryKey) IN \(owners)", ownerRoot: layout.entity.root.name, destinationRoot: destination.root.name))
                case .inverseForeignKey:
                    guard let inverse = link.inverse else { continue }
                    for table in destinationTables(link, in: layouts) {
                        statements.append(.init(sql: insert + "\(TableLayout.primaryKey), ?1 FROM \(table.table) WHERE \(table.column(inverse)) IN \(owners)", ownerRoot: layout.entity.root.name, destinationRoot: destination.root.name))
                    }
                case .link(let name, let ownerIsSource):
                    let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
                    statements.append(.init(sql: insert + "\(other), ?1 FROM \(SQL.quote(name.table)) WHERE \(own) IN \(owners)", ownerRoot: layout.entity.root.name, destinationRoot: destination.root.name))
                }
            }
        }
        return statements
    }

    /// One query per `.deny` relationship: a row that a doomed row relates to and that stays.
    static func denyChecks(_ layouts: [String: TableLayout]) -> [DeleteRuleStatements.Denial] {
        var checks: [DeleteRuleStatements.Denial] = []
        for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
            for (property, link) in layout.links.sorted(by: { $0.key < $1.key }) where link.deleteRule == .deny {
                guard let destination = layouts[link.destinationName]?.entity else { continue }
                let owners = Self.doomed(layout.entity)
                let staying = "NOT IN \(Self.doomed(destination))"
                switch link.storage {
                case .foreignKey:
                    let column = layout.column(property)
                    checks.append(.init(entity: layout.entity, link: link, sql: "SELECT 1 FROM \(layout.table) WHERE \(TableLayout.primaryKey) IN \(owners) AND \(column) IS NOT NULL AND \(column) \(staying) LIMIT 1"))
                case .inverseForeignKey:
                    guard let inverse = link.inverse else { continue }
                    for table in destinationTables(link, in: layouts) {
                        checks.append(.init(entity: layout.entity, link: link, sql: "SELECT 1 FROM \(table.table) WHERE \(table.column(inverse)) IN \(owners) AND \(TableLayout.primaryKey) \(staying) LIMIT 1"))
                    }
                case .link(let name, let ownerIsSource):
                    let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
                    checks.append(.init(entity: layout.entity, link: link, sql: "SELECT 1 FROM \(SQL.quote(name.table)) WHERE \(own) IN \(owners) AND \(other) \(staying) LIMIT 1"))
                }
            }
        }
        return checks
    }
}

/// The statements that apply delete rules in SQL, made once when a store opens: they depend on the
/// schema alone.
struct DeleteRuleStatements {
    /// One `.cascade` relationship's statement, with the hierarchies it reads and adds to.
    struct Cascade {
        let sql: String
        let ownerRoot: String
        let destinationRoot: String
    }

    /// One `.deny` relationship's query for a related row that stays.
    struct Denial {
        let entity: Schema.Entity
        let link: RelationshipLink
        let sql: String
    }

    /// The roots of the schema's class hierarchies (each entity outside one is its own root).
    let roots: [String]
    let cascades: [Cascade]
    let denials: [Denial]

    init(schema: Schema, layouts: [String: TableLayout]) {
        roots = Array(Set(schema.entities.map(\.root.name))).sorted()
        cascades = SQLiteStore.cascadeStatements(layouts)
        denials = SQLiteStore.denyChecks(layouts)
    }
}
