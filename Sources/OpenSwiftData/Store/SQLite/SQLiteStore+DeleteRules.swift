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

    /// The roots of the schema's class hierarchies (each entity outside one is its own root).
    private var roots: [String] { Array(Set(schema.entities.map(\.root.name))).sorted() }

    /// Deletes the rows the batch deletes select and the rows `changes.deletes` names, applying
    /// the delete rules of every doomed row. Runs inside the save's transaction, before its other
    /// writes; throws (and the save rolls back) when a `.deny` rule blocks.
    func deleteApplyingRules(_ changes: StoreChanges, history: inout HistoryLog, on connection: SQLiteConnection) throws -> RuleDeletion {
        for root in roots {
            let table = Self.doomedTable(root: root)
            try connection.statement("CREATE TEMP TABLE IF NOT EXISTS \(table) (k INTEGER PRIMARY KEY, wave INTEGER NOT NULL DEFAULT 0)").run()
            try connection.statement("DELETE FROM \(table)").run()
        }
        // The rows the predicates select, and the models deleted one by one.
        for (entity, filter) in changes.batchDeletes {
            let layout = try self.layout(for: entity.name)
            var compiler = SQLCompiler(layout: layout)
            let condition = filter.map { " WHERE " + compiler.sql($0) } ?? ""
            let seed = try connection.statement("INSERT OR IGNORE INTO \(Self.doomedTable(root: entity.root.name)) (k) SELECT \(TableLayout.primaryKey) FROM \(layout.table)\(condition)")
            try seed.bind(compiler.arguments)
            try seed.run()
            seed.reset()
        }
        for (entity, key) in changes.deletes {
            let seed = try connection.statement("INSERT OR IGNORE INTO \(Self.doomedTable(root: entity.root.name)) (k) VALUES (?)")
            try seed.bind([.integer(key)])
            try seed.run()
            seed.reset()
        }
        try cascade(on: connection)
        try checkDenyRules(on: connection)
        var result = RuleDeletion()
        for entity in schema.entities {
            let layout = try self.layout(for: entity.name)
            let doomed = Self.doomed(entity)
            let preserved: [Int64: [String: SnapshotValue]]
            if changes.recordsHistory, !layout.preservedAttributes.isEmpty {
                let select = try connection.statement("\(layout.selectPrefix(attributes: layout.preservedAttributes)) WHERE \(TableLayout.primaryKey) IN \(doomed)")
                preserved = try layout.preservedValues(from: select, attributes: layout.preservedAttributes)
                select.reset()
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
    private func cascade(on connection: SQLiteConnection) throws {
        let statements = cascadeStatements
        guard !statements.isEmpty else { return }
        var wave: Int64 = 0
        var added = true
        while added {
            added = false
            for sql in statements {
                let statement = try connection.statement(sql)
                try statement.bind([.integer(wave + 1), .integer(wave)])
                try statement.run()
                statement.reset()
                if connection.changes > 0 { added = true }
            }
            wave += 1
        }
    }

    /// Throws when a doomed row's `.deny` relationship holds a row that is not doomed.
    private func checkDenyRules(on connection: SQLiteConnection) throws {
        for (entity, link, sql) in denyChecks {
            let check = try connection.statement(sql)
            defer { check.reset() }
            if try check.step() {
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
    private func destinationTables(_ link: RelationshipLink) -> [TableLayout] {
        guard let destination = layouts[link.destinationName] else { return [] }
        return destination.entity.concreteEntities.compactMap { layouts[$0.name] }
    }

    /// One statement per `.cascade` relationship: the related rows of the rows the last pass doomed
    /// become doomed, in the next wave (parameter 1; the last wave is parameter 2).
    var cascadeStatements: [String] {
        var statements: [String] = []
        for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
            for (property, link) in layout.links.sorted(by: { $0.key < $1.key }) where link.deleteRule == .cascade {
                guard let destination = layouts[link.destinationName]?.entity else { continue }
                let insert = "INSERT OR IGNORE INTO \(Self.doomedTable(root: destination.root.name)) (k, wave) SELECT "
                let owners = Self.doomed(layout.entity, lastWave: true)
                switch link.storage {
                case .foreignKey:
                    let column = layout.column(property)
                    statements.append(insert + "\(column), ?1 FROM \(layout.table) WHERE \(column) IS NOT NULL AND \(TableLayout.primaryKey) IN \(owners)")
                case .inverseForeignKey:
                    guard let inverse = link.inverse else { continue }
                    for table in destinationTables(link) {
                        statements.append(insert + "\(TableLayout.primaryKey), ?1 FROM \(table.table) WHERE \(table.column(inverse)) IN \(owners)")
                    }
                case .link(let name, let ownerIsSource):
                    let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
                    statements.append(insert + "\(other), ?1 FROM \(SQL.quote(name.table)) WHERE \(own) IN \(owners)")
                }
            }
        }
        return statements
    }

    /// One query per `.deny` relationship: a row that a doomed row relates to and that stays.
    var denyChecks: [(Schema.Entity, RelationshipLink, String)] {
        var checks: [(Schema.Entity, RelationshipLink, String)] = []
        for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
            for (property, link) in layout.links.sorted(by: { $0.key < $1.key }) where link.deleteRule == .deny {
                guard let destination = layouts[link.destinationName]?.entity else { continue }
                let owners = Self.doomed(layout.entity)
                let staying = "NOT IN \(Self.doomed(destination))"
                switch link.storage {
                case .foreignKey:
                    let column = layout.column(property)
                    checks.append((layout.entity, link, "SELECT 1 FROM \(layout.table) WHERE \(TableLayout.primaryKey) IN \(owners) AND \(column) IS NOT NULL AND \(column) \(staying) LIMIT 1"))
                case .inverseForeignKey:
                    guard let inverse = link.inverse else { continue }
                    for table in destinationTables(link) {
                        checks.append((layout.entity, link, "SELECT 1 FROM \(table.table) WHERE \(table.column(inverse)) IN \(owners) AND \(TableLayout.primaryKey) \(staying) LIMIT 1"))
                    }
                case .link(let name, let ownerIsSource):
                    let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
                    checks.append((layout.entity, link, "SELECT 1 FROM \(SQL.quote(name.table)) WHERE \(own) IN \(owners) AND \(other) \(staying) LIMIT 1"))
                }
            }
        }
        return checks
    }
}
