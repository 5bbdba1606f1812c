extension SQLiteStore {
    /// Writes the changes in one transaction. On any error nothing is written.
    ///
    /// An inserted model whose values of a uniqueness constraint match an existing row updates that
    /// row instead (an upsert); matching two different rows is a uniqueness conflict.
    func save(_ changes: StoreChanges) throws -> StoreSaveResult {
        guard !isReadOnly else {
            throw SwiftDataError(.storeIsReadOnly, reason: "The store at \(path) is read-only.")
        }
        return try withConnection { try save(changes, on: $0) }
    }

    /// Saves `changes` in one transaction on the writer `connection`.
    private func save(_ changes: StoreChanges, on connection: SQLiteConnection) throws -> StoreSaveResult {
        // Held statements: a save of one row should not parse or look up SQL.
        try connection.statement(.beginImmediate).run()
        connection.knownKeyFloors.begin(at: connection.dataVersion)
        do {
            try checkNoPlanIsMigrating()
            let keys = try write(changes, on: connection)
            if let records = changes.companionRecords { try writeCompanionRecords(try records(), on: connection) }
            try checkFileInPlace(connection)
            try connection.statement(.commit).run()
            connection.knownKeyFloors.committed(at: connection.dataVersion)
            return keys
        } catch {
            connection.knownKeyFloors.forgetAll()
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            // New models took their keys as their rows were written; none of those rows exists now.
            for (_, model) in changes.inserts { model._osdState.primaryKey = 0 }
            throw error
        }
    }

    private func write(_ changes: StoreChanges, on connection: SQLiteConnection) throws -> StoreSaveResult {
        // Runs of changes to one entity look its layout up once.
        var lastLayout: TableLayout?
        func layout(_ entity: Schema.Entity) throws -> TableLayout {
            if let lastLayout, lastLayout.entity === entity { return lastLayout }
            let found = try self.layout(for: entity.name)
            lastLayout = found
            return found
        }
        var batchDeleted: [[Int64]] = []
        var history = HistoryLog()
        let recordsHistory = changes.recordsHistory
        var ruleDeleted: [(entity: Schema.Entity, keys: [Int64])] = []
        // The largest key each table lost in this save, for its key floor.
        var largestDeleted: [ObjectIdentifier: (entity: Schema.Entity, key: Int64)] = [:]
        func noteDeleted(_ entity: Schema.Entity, _ keys: some Sequence<Int64>) {
            guard let largest = keys.max() else { return }
            let slot = ObjectIdentifier(entity)
            if largestDeleted[slot].map({ $0.key < largest }) ?? true { largestDeleted[slot] = (entity, largest) }
        }
        if changes.appliesDeleteRules {
            ruleDeleted = try deleteApplyingRules(changes, history: &history, on: connection).deleted
            for (entity, keys) in ruleDeleted { noteDeleted(entity, keys) }
            batchDeleted = changes.batchDeletes.map { entity, _ in ruleDeleted.first { $0.entity === entity }?.keys ?? [] }
        } else {
            for (entity, filter) in changes.batchDeletes {
                let layout = try layout(entity)
                let preserved = recordsHistory ? try preservedValues(layout, where: filter, on: connection) : [:]
                var compiler = SQLCompiler(layout: layout)
                // Always a WHERE clause: without one SQLite truncates the table, bypassing the hook
                // that names the deleted rows. The hook reports them in the delete's own pass (a
                // `RETURNING` clause makes SQLite delete in two passes, a separate SELECT scans twice:
                // each measured 50-100% slower).
                let whereClause = " WHERE " + (filter.map { compiler.sql($0) } ?? "\(TableLayout.primaryKey) IS NOT NULL")
                let delete = try connection.statement("DELETE FROM \(layout.table)\(whereClause)")
                try delete.bind(compiler.arguments)
                let keys = try connection.collectingDeletedRowIDs { try delete.run() }
                try removeReferences(to: keys, of: layout, history: &history, recordsHistory: recordsHistory, on: connection)
                noteDeleted(entity, keys)
                batchDeleted.append(keys)
                if recordsHistory { history.delete(entity, keys: keys, preserved: preserved) }
            }
        }
        var statement: SQLiteStatement?
        var statementSQL = ""
        func prepared(_ sql: String) throws -> SQLiteStatement {
            if sql == statementSQL, let statement {
                statement.reset()
                return statement
            }
            let fresh = try connection.statement(sql)
            statement = fresh
            statementSQL = sql
            return fresh
        }
        for (entity, primaryKey) in changes.deletes where !changes.appliesDeleteRules {
            let layout = try layout(entity)
            let preserved = recordsHistory
                ? try preservedValues(layout, where: .compare(.equal, .key(scope: 0), .value(.integer(primaryKey)), .init()), on: connection)
                : [:]
            let delete = try prepared(layout.deleteSQL)
            try delete._bind(primaryKey, 0)
            try delete.run()
            // A row a batch delete of this save removed is recorded once.
            guard connection.changes > 0 else { continue }
            if recordsHistory { history.delete(entity, key: primaryKey, preserved: preserved[primaryKey]) }
            try removeReferences(to: [primaryKey], of: layout, history: &history, recordsHistory: recordsHistory, on: connection)
            noteDeleted(entity, CollectionOfOne(primaryKey))
        }
        for (entity, key) in largestDeleted.values {
            let layout = try layout(entity)
            if layout.sharedKeysTable == nil { try Self.raiseKeyFloor(of: layout, to: key, on: connection) }
        }
        // The tables whose first inserted row of this save has been checked against its floor, and
        // the entity of the row written last (a run of rows of one entity looks them up once).
        var checkedFloors = CheckedTables()
        var lastChecked: Schema.Entity?
        var deferred: [(layout: TableLayout, model: any PersistentModel, links: [(parameter: Int32, target: any PersistentModel)])] = []
        // To-one relationships to models that get their keys later in this save, per row written.
        let links = _DeferredLinks()
        // Each table's insert statement, found by its layout (``SQLiteConnection/statement(_:ownedBy:)``),
        // and for a run of rows of one table by one comparison. Its bindings are not cleared
        // between the rows of a run: every row binds every parameter the statement has (generated
        // code binds each stored property at its own numbered parameter, NULL included, and a
        // hierarchy's key last).
        var lastInsert: (layout: ObjectIdentifier, statement: SQLiteStatement)?
        func insertStatement(_ layout: TableLayout) throws -> SQLiteStatement {
            let identifier = ObjectIdentifier(layout)
            if let lastInsert, lastInsert.layout == identifier {
                lastInsert.statement.resetKeepingBindings()
                return lastInsert.statement
            }
            let statement = try connection.statement(layout.insertSQL, ownedBy: layout)
            lastInsert = (identifier, statement)
            return statement
        }
        var keys = [Int64](repeating: 0, count: changes.inserts.count)
        var upserted: [Int] = []
        // An insert matching on a related model new in this save waits for that model's key, so that
        // it finds the rows of this save with the same values, as inserts matching on attributes do.
        // The first pass goes through every insert; each later one through those still waiting,
        // whose related models were written before. After a pass that wrote none of them (related
        // models waiting for each other, or getting no key in this save), they are written without
        // a match on those models. (One loop, no nested function: the common save is one pass.)
        var waiting: [Int]?
        var waits = true
        // The entity of the first pass's rows while they are all of one (the common save), noted
        // as they are written so that the history records them as one run without looking at
        // each row's entity again (`HistoryLog.insert(_:keys:skipping:)` would, at a cost per row).
        var onlyEntity: Schema.Entity?
        var entitiesDiffer = false
        repeat {
            var stillWaiting: [Int] = []
            for step in 0..<(waiting?.count ?? changes.inserts.count) {
                let position = waiting?[step] ?? step
                let (entity, model) = changes.inserts[position]
                if waiting == nil, !entitiesDiffer {
                    if onlyEntity == nil { onlyEntity = entity } else if onlyEntity !== entity { entitiesDiffer = true }
                }
                let layout = try layout(entity)
                if layout.upsertLookupSQL != nil {
                    switch try existingRow(for: model, layout: layout, waits: waits, on: connection) {
                    case .relatedModelWithoutKey:
                        stillWaiting.append(position)
                        continue
                    case .row(let existing):
                        let update = try connection.statement(layout.fullUpdateSQL)
                        for index in layout.columnProperties {
                            try PropertyEncoding.encode(model, property: index, of: layout.entity, to: update, at: Int32(index), deferring: links)
                        }
                        try update._bind(existing, Int32(layout.columns.count))
                        try update.run()
                        if !links.isEmpty { deferred.append((layout, model, links.take())) }
                        model._osdState.primaryKey = existing
                        keys[position] = existing
                        upserted.append(position)
                        // An upsert is an update of the existing row, of every stored property.
                        if recordsHistory { history.updateByStore(entity, key: existing, mask: layout.columnProperties.reduce(0) { $0 | 1 << UInt64($1) }) }
                        continue
                    case .none:
                        break
                    }
                }
                let insert = try insertStatement(layout)
                if let keys = layout.sharedKeysTable {
                    try insert._bind(try nextSharedKey(keys, on: connection), Int32(layout.columns.count))
                }
                try PropertyEncoding.encodeAll(model, of: entity, properties: layout.columnProperties, to: insert, deferring: links)
                try insert.run()
                if !links.isEmpty { deferred.append((layout, model, links.take())) }
                // The key is the model's now, so that later rows of this save can refer to it.
                var key = connection.lastInsertedRowID
                if layout.sharedKeysTable == nil, lastChecked !== entity {
                    lastChecked = entity
                    if checkedFloors.insert(entity) {
                        // Rows after this one follow it: SQLite counts on from the largest key.
                        key = try Self.keyAboveFloor(of: layout, inserted: key, on: connection)
                    }
                }
                model._osdState.primaryKey = key
                keys[position] = key
                // The first pass's rows are recorded together after it, in the order written.
                if recordsHistory, waiting != nil { history.insert(entity, key: key) }
            }
            if recordsHistory, waiting == nil {
                if let onlyEntity, !entitiesDiffer, upserted.isEmpty, stillWaiting.isEmpty {
                    history.insert(onlyEntity, keys: keys)
                } else {
                    let skipped = upserted.isEmpty ? stillWaiting : (upserted + stillWaiting).sorted()
                    history.insert(changes.inserts.lazy.map(\.entity), keys: keys, skipping: skipped)
                }
            }
            if stillWaiting.count == (waiting?.count ?? changes.inserts.count) { waits = false }
            waiting = stillWaiting
        } while !(waiting?.isEmpty ?? true)
        // Rows that referred to models inserted after them get their keys.
        for (layout, model, links) in deferred {
            for (parameter, target) in links where layout.columns[Int(parameter)] != nil
                && target._osdState.primaryKey != 0 && !target._osdState.isDeleted {
                let link = try connection.statement("UPDATE \(layout.table) SET \(layout.column(Int(parameter))) = ? WHERE \(TableLayout.primaryKey) = ?")
                try link._bind(target._osdState.primaryKey, 0)
                try link._bind(model._osdState.primaryKey, 1)
                try link.run()
                link.reset()
            }
        }
        var lastUpdate: (layout: TableLayout, mask: UInt64, statement: SQLiteStatement)?
        for (entity, model, mask) in changes.updates {
            // Recorded whatever is written: a change to a to-many relationship has no column here.
            if recordsHistory { history.update(entity, key: model._osdState.primaryKey, mask: mask) }
            let layout = try layout(entity)
            // Runs of updates to the same properties reuse one statement without a cache lookup.
            let update: SQLiteStatement
            if let lastUpdate, lastUpdate.layout === layout, lastUpdate.mask == mask {
                update = lastUpdate.statement
                update.reset()
            } else {
                guard let sql = updateSQL(layout, mask: mask) else { continue }
                update = try prepared(sql)
                lastUpdate = (layout, mask, update)
            }
            var parameter: Int32 = 0
            for index in layout.columnProperties where mask & (1 << UInt64(index)) != 0 {
                try PropertyEncoding.encode(model, property: index, of: layout.entity, to: update, at: parameter, deferring: links)
                parameter += 1
            }
            try update._bind(model._osdState.primaryKey, parameter)
            try update.run()
            // Every related model already has its key: inserts ran first.
            _ = links.take()
        }
        for (link, owner, targets) in changes.linkWrites {
            let table = link.table
            let clear = try connection.statement("DELETE FROM \(SQL.quote(table)) WHERE owner = ?")
            try clear._bind(owner._osdState.primaryKey, 0)
            try clear.run()
            clear.reset()
            let add = try connection.statement("INSERT OR IGNORE INTO \(SQL.quote(table)) (owner, target) VALUES (?, ?)")
            for target in targets where target._osdState.primaryKey != 0 && !target._osdState.isDeleted {
                try add._bind(owner._osdState.primaryKey, 0)
                try add._bind(target._osdState.primaryKey, 1)
                try add.run()
                add.reset()
            }
        }
        var result = StoreSaveResult(inserted: keys, upserted: upserted, batchDeleted: batchDeleted)
        result.ruleDeleted = ruleDeleted
        if !changes.batchUpdates.isEmpty {
            result.batchUpdated = try writeBatchUpdates(changes, history: &history, on: connection)
        }
        if recordsHistory, !history.isEmpty {
            result.historyTransaction = try history.write(author: changes.author, origin: changes.origin, on: connection)
        }
        return result
    }

    /// The values a deletion keeps in the history for the rows a filter selects, by key: none
    /// when the entity has no `.preserveValueOnDeletion` attribute.
    private func preservedValues(_ layout: TableLayout, where filter: QueryExpression?, on connection: SQLiteConnection) throws -> [Int64: [String: SnapshotValue]] {
        let attributes = layout.preservedAttributes
        guard !attributes.isEmpty else { return [:] }
        var compiler = SQLCompiler(layout: layout)
        let condition = filter.map { " WHERE " + compiler.sql($0) } ?? ""
        let select = try connection.statement("\(layout.selectPrefix(attributes: attributes))\(condition)")
        defer { select.reset() }
        try select.bind(compiler.arguments)
        return try layout.preservedValues(from: select, attributes: attributes)
    }

    /// A primary key no table of a class hierarchy has used: from an AUTOINCREMENT table, which
    /// never hands out a key twice, kept empty.
    private func nextSharedKey(_ table: String, on connection: SQLiteConnection) throws -> Int64 {
        try connection.statement("INSERT INTO \(table) DEFAULT VALUES").run()
        let key = connection.lastInsertedRowID
        let clear = try connection.statement("DELETE FROM \(table) WHERE k = ?")
        try clear._bind(key, 0)
        try clear.run()
        clear.reset()
        return key
    }

    /// Removes every reference to deleted rows: foreign keys pointing at them become NULL, their
    /// link-table rows go. (Delete rules already did this for the loaded models; this covers rows
    /// no context has loaded, and one-way relationships.)
    private func removeReferences(to keys: [Int64], of layout: TableLayout, history: inout HistoryLog, recordsHistory: Bool, on connection: SQLiteConnection) throws {
        guard let statements = referenceCleanup[layout.entity.name], !keys.isEmpty else { return }
        for cleanup in statements {
            let statement = try connection.statement(cleanup.sql)
            try Self.run(cleanup, history: &history, recordsHistory: recordsHistory, on: connection) {
                for key in keys {
                    try statement._bind(key, 0)
                    try statement.run()
                    statement.reset()
                }
            }
        }
    }

    /// Runs `body`, which runs the statement of a reference cleanup; when the statement nullifies a
    /// relationship and the save keeps history, records each row it changed as an update of that
    /// relationship.
    static func run(_ cleanup: ReferenceCleanup, history: inout HistoryLog, recordsHistory: Bool, on connection: SQLiteConnection, _ body: () throws -> Void) throws {
        guard recordsHistory, let (entity, property) = cleanup.nullified else { return try body() }
        for key in try connection.collectingUpdatedRowIDs(body) {
            history.updateByStore(entity, key: key, mask: 1 << UInt64(property))
        }
    }

    /// What an inserted model's uniqueness-constraint values name among the stored rows.
    private enum UniqueMatch {
        /// No stored row has the values.
        case none
        /// The row with the values, which the insert updates.
        case row(Int64)
        /// A constraint names a related model that has no key yet, so no stored row can be matched
        /// on it until that model is written.
        case relatedModelWithoutKey
    }

    /// The row an inserted model's uniqueness-constraint values already name, if any; when `waits`,
    /// none is looked for while a constraint names a related model without a key (one that never
    /// gets one matches nothing, as `nil` does).
    private func existingRow(for model: any PersistentModel, layout: TableLayout, waits: Bool, on connection: SQLiteConnection) throws -> UniqueMatch {
        guard let sql = layout.upsertLookupSQL else { return .none }
        let lookup = try connection.statement(sql)
        defer { lookup.reset() }
        let unkeyed = _DeferredLinks()
        for (parameter, index) in layout.uniqueKeyAttributes.enumerated() {
            try PropertyEncoding.encode(model, property: index, of: layout.entity, to: lookup, at: Int32(parameter), deferring: unkeyed)
        }
        if waits, unkeyed.take().contains(where: { !$0.target._osdState.isDeleted }) { return .relatedModelWithoutKey }
        var rows: Set<Int64> = []
        while try lookup.step() { rows.insert(lookup._int64(0)) }
        guard rows.count <= 1 else {
            throw SwiftDataError(.uniquenessConflict, reason: "A new \(layout.entity.name) matches \(rows.count) different stored rows on its uniqueness constraints \(layout.entity.uniquenessConstraints); it can update only one. Nothing was saved.")
        }
        return rows.first.map(UniqueMatch.row) ?? .none
    }
}

/// The entities whose tables a save has checked against their key floors: the first in a field of
/// its own and any others in a set, so that a save of one entity's rows (the common save) makes no
/// set.
private struct CheckedTables {
    private var first: Schema.Entity?
    private var others: Set<ObjectIdentifier> = []

    /// Notes `entity`; returns whether it was not noted before. Out of line: called once per run
    /// of one entity's rows, and inlined it pushed the save's insert loop past the optimizer's
    /// inlining budget (its look-ups of a table's statement and layout became calls, W1 +0.17%).
    @inline(never)
    mutating func insert(_ entity: Schema.Entity) -> Bool {
        guard let first else {
            first = entity
            return true
        }
        return first !== entity && others.insert(ObjectIdentifier(entity)).inserted
    }
}
