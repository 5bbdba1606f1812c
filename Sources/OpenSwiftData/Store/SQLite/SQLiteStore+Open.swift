import CSQLite
import Foundation

/// Opening a store file: a read-only look at it, then creating it, migrating it or opening it as
/// it is, with each change re-checked under SQLite's write lock (see ``ChangedWhileOpening``).
extension SQLiteStore {
    /// Thrown inside an open's write when the file is no longer as its inspection found it.
    struct ChangedWhileOpening: Error {}

    /// The query counting the rows that hold data where a migration would delete it.
    private static func countOfRowsHoldingData(_ removal: DestructiveChanges.Removal) -> String {
        switch removal {
        case .model(let entity): "SELECT count(*) FROM \(SQL.quote(entity))"
        case .property(let entity, let name): "SELECT count(*) FROM \(SQL.quote(entity)) WHERE \(SQL.quote(name)) IS NOT NULL"
        case .link(let table, _): "SELECT count(*) FROM \(SQL.quote(table))"
        }
    }

    /// Inspects the store file, and creates it, migrates it or opens it as it is.
    static func openFile(
        at url: URL, layouts: [String: TableLayout], models: StoredSchema, allowsSave: Bool, allowsDestructiveMigration: Bool
    ) throws -> (connection: SQLiteConnection, readers: ConnectionPool<SQLiteConnection>?, identifier: String, isReadOnly: Bool) {
        let path = url.path
        try MigrationJournal.recover(storeAt: path)
        let existing = try StoreFileInspection.inspect(path: path)
        var migration: LightweightMigration?
        if let existing {
            if existing.format > SQLiteStore.formatVersion {
                throw SwiftDataError(.storeFromNewerVersion, reason: "The store at \(path) has format \(existing.format); this version of OpenSwiftData reads up to \(SQLiteStore.formatVersion). The file was not changed.")
            }
            if let recorded = existing.schema, !recorded.differences(from: models).isEmpty {
                if !MigrationPlanRunner.mayOpen(storedAt: recorded.version, at: models.version),
                   let stored = recorded.version, let current = models.version {
                    throw SwiftDataError(.backwardMigration, reason: "The store at \(path) was written by version \(stored) of the schema, newer than \(current); migrating it back could lose data, so it was not changed. To go back, open it with a SchemaMigrationPlan that has a stage from version \(stored) to \(current).")
                }
                // Throws, with the file untouched, when a change needs a custom migration stage.
                do {
                    let probe = try StoreFileInspection.readOnlyConnection(path: path)
                    migration = try LightweightMigration(from: recorded, to: layouts, path: path) { table, column in
                        let condition = column.map { " WHERE \(SQL.quote($0)) IS NULL" } ?? ""
                        return try probe.integer("SELECT count(*) FROM \(SQL.quote(table))\(condition)") ?? 0
                    }
                    if !allowsDestructiveMigration {
                        try DestructiveChanges(from: recorded, to: models).refuse(place: "the store at \(path)") { removal in
                            try probe.integer(SQLiteStore.countOfRowsHoldingData(removal)) ?? 0
                        }
                    }
                } catch let error as SQLiteError {
                    throw error.swiftDataError.adding(context: "Planning the migration of \(path)")
                }
                guard allowsSave, FileManager.default.isWritableFile(atPath: path) else {
                    throw SwiftDataError(.schemaMismatch, reason: "The store at \(path) was written by different models and needs a migration, but it is opened read-only. The file was not changed.")
                }
                // A lightweight change waits for a planned migration of the store (whose backup
                // it would escape, and whose stages it would race), and plans wait for it; under
                // the lock the store is looked at again from the start.
                if MigrationJournal.lockedStore != path {
                    return try MigrationJournal.lockingMigrations(of: path) {
                        try openFile(at: url, layouts: layouts, models: models, allowsSave: allowsSave, allowsDestructiveMigration: allowsDestructiveMigration)
                    }
                }
            }
        } else {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let writable = existing == nil || FileManager.default.isWritableFile(atPath: path)
        guard writable || !allowsSave else {
            throw SwiftDataError(.storeIsReadOnly, reason: "The store at \(path) is read-only; open it with ModelConfiguration(allowsSave: false) to read it.")
        }
        do {
            let connection = try SQLiteConnection(path: path, readOnly: !writable, create: existing == nil)
            // In WAL mode readers never block the writer or each other: fetches from several
            // threads run in parallel, each reader with its own prepared-statement cache.
            let readers = writable ? ConnectionPool(maximum: max(2, min(ProcessInfo.processInfo.activeProcessorCount, 8)), observer: StoreObserver.opening) {
                let reader = try SQLiteConnection(path: path, readOnly: true, create: false)
                try reader.execute("PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY")
                return reader
            } : nil
            if existing?.schema != nil, migration == nil {
                try SQLiteStore.checkTablesExist(connection, layouts: layouts, path: path)
            }
            if writable {
                do {
                    try connection.execute(SQLiteStore.pragmas)
                } catch let error as SQLiteError where error.code & 0xFF == SQLITE_BUSY {
                    // Turning a new file to WAL takes an exclusive lock, and SQLite does not wait
                    // for it: another connection is creating the store. Open again once it has.
                    throw ChangedWhileOpening()
                }
                // A store from before history gets its tables; an existing one is left alone.
                // (A file without a schema record is created in one transaction below.)
                if existing?.schema != nil {
                    for statement in SQLiteStore.historyTables + [SQLiteStore.keyFloorsTable] { try connection.execute(statement) }
                }
            }
            if let existing, let recorded = existing.schema {
                if let migration {
                    let started = StoreObserver.now()
                    try SQLiteStore.migrate(connection, with: migration, from: recorded, to: models)
                    StoreObserver.opening?.migratedLightly(store: path, changes: recorded.differences(from: models), since: started)
                } else if writable, recorded.isDetailed == false {
                    // The record predates the details tools read; the storage it describes matches.
                    try SQLiteStore.record(models, on: connection)
                }
                // Only when opened for saving: a configuration with `allowsSave: false` writes nothing.
                if writable && allowsSave {
                    try SQLiteStore.upgrade(connection, layouts: layouts)
                    try SQLiteStore.recordHistoryFields(connection, entities: layouts.values.map(\.entity), path: path)
                }
                return (connection, readers, existing.identifier ?? UUID().uuidString, !writable)
            }
            let identifier = UUID().uuidString
            try SQLiteStore.initialize(connection, layouts: layouts, schema: models, identifier: identifier)
            return (connection, readers, identifier, !writable)
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Opening \(path)")
        }
    }

    /// Creates the tables of the models and records their schema, in one transaction.
    static func initialize(_ connection: SQLiteConnection, layouts: [String: TableLayout], schema: StoredSchema, identifier: String) throws {
        try initialize(
            connection, tables: layouts.values.map(\.ddl), schema: schema, identifier: identifier,
            historyFields: HistoryFieldLayouts(first: layouts.values.map(\.entity)))
    }

    /// Creates the tables and records the schema, in one transaction. Without `historyFields`, the
    /// record of the history's property lists begins with the models the store is next opened with.
    static func initialize(
        _ connection: SQLiteConnection, tables: [SQLiteTableDDL], schema: StoredSchema, identifier: String, historyFields: HistoryFieldLayouts?
    ) throws {
        try connection.writeTransaction {
            // Another connection created the store (or anything else) since the file was inspected.
            if try connection.integer("SELECT count(*) FROM sqlite_master") != 0 { throw ChangedWhileOpening() }
            try connection.execute("CREATE TABLE osd_metadata (key TEXT PRIMARY KEY, value ANY) STRICT")
            for statement in historyTables + [keyFloorsTable] { try connection.execute(statement) }
            for table in tables.sorted(by: { $0.table < $1.table }) {
                for statement in table.createStatements { try connection.execute(statement) }
            }
            let insert = try connection.uncachedStatement("INSERT INTO osd_metadata (key, value) VALUES (?, ?)")
            var records = [("format", StoredValue.integer(formatVersion)), ("schema", .text(try schema.json())), ("identifier", .text(identifier))]
            if let historyFields { records.append((HistoryFieldLayouts.metadataKey, .text(try historyFields.json()))) }
            for (key, value) in records + upgrades.map({ ($0.key, StoredValue.text($0.value)) }) {
                insert.reset()
                try insert.bind([.text(key), value])
                try insert.run()
            }
        }
    }

    /// Applies a lightweight migration planned from the `recorded` schema and records the new
    /// schema, in one transaction.
    private static func migrate(_ connection: SQLiteConnection, with migration: LightweightMigration, from recorded: StoredSchema, to schema: StoredSchema) throws {
        try connection.writeTransaction {
            // Another connection migrated the store since the migration was planned.
            guard try recordedSchema(on: connection) == recorded else { throw ChangedWhileOpening() }
            try migration.run(on: connection)
            try record(schema, on: connection)
        }
    }

    /// The schema the store records now, or `nil` when it records none. Its statement is done when
    /// this returns, so that a migration may then drop tables.
    private static func recordedSchema(on connection: SQLiteConnection) throws -> StoredSchema? {
        let statement = try connection.uncachedStatement("SELECT value FROM osd_metadata WHERE key = 'schema'")
        guard try statement.step() else { return nil }
        let text = statement._string(0)
        statement.reset()
        do {
            return try JSONDecoder().decode(StoredSchema.self, from: Data(text.utf8))
        } catch {
            throw SwiftDataError(.storeIsCorrupt, reason: "The store at \(connection.path) has no readable schema record: \(error). It was not changed.")
        }
    }

    /// Replaces the recorded schema (inside the caller's transaction, or as one statement).
    private static func record(_ schema: StoredSchema, on connection: SQLiteConnection) throws {
        let record = try connection.uncachedStatement("UPDATE osd_metadata SET value = ? WHERE key = 'schema'")
        try record.bind([.text(try schema.json())])
        try record.run()
    }
}
