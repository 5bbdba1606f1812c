import Foundation
import OpenSwiftData
import PostgresNIO

extension PostgresBackend {
    /// Opens the configuration's namespace, creating it when it does not exist, and returns the
    /// store's identifier, whether the namespace has ``PostgresSwiftSum``'s aggregate, and the
    /// property lists its history refers to. Creation is one transaction under an advisory lock,
    /// so two processes opening a new namespace at once create it once.
    static func open(
        _ session: PostgresSession, tables: [String: PostgresTable], schema: StoredSchema, namespace: String, location: PostgresLocation,
        allowsSave: Bool, allowsDestructiveMigration: Bool
    ) throws -> Opened {
        // Looked up once per process, when a store opens rather than in its first save: finding
        // the main bundle reads the executable's whole directory.
        _ = HistoryLog.processIdentity
        try session.begin()
        do {
            try session.execute("SELECT pg_advisory_xact_lock(hashtext(\(PostgresSQL.literal("osd-open:" + location.namespace))))")
            let opened: Opened
            if let recorded = try recordedMetadata(session, location: location) {
                opened = try check(
                    recorded, against: schema, tables: tables, namespace: namespace, location: location,
                    allowsSave: allowsSave, allowsDestructiveMigration: allowsDestructiveMigration, on: session)
            } else {
                opened = Opened(identifier: UUID().uuidString, sumsAsSwift: true, historyFields: HistoryFieldLayouts(first: tables.values.map(\.entity)))
                try create(session, tables: tables.values.map(\.ddl), schema: schema, identifier: opened.identifier, historyFields: opened.historyFields,
                           namespace: namespace)
            }
            try session.commit()
            return opened
        } catch {
            session.rollback()
            throw error
        }
    }

    /// The namespace's metadata, `nil` when the namespace does not exist; throws when it exists
    /// but is not a store's.
    static func recordedMetadata(_ session: PostgresSession, location: PostgresLocation) throws -> [String: String]? {
        var bindings = PostgresBindings()
        bindings.append(location.namespace)
        let relations = try session.query(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1", bindings)
            .map { PostgresRowReader($0)._string(0) }
        let exists = try !session.query("SELECT 1::int8 FROM pg_namespace WHERE nspname = $1", bindings).isEmpty
        guard exists else { return nil }
        guard relations.contains("osd_metadata") else {
            if relations.isEmpty {
                throw SwiftDataError(.schemaMismatch, reason: "PostgreSQL \(location.displayName) exists but is empty and was not made by OpenSwiftData; drop it or name another configuration. Nothing was changed.")
            }
            throw SwiftDataError(.schemaMismatch, reason: "PostgreSQL \(location.displayName) holds tables that are not an OpenSwiftData store (\(relations.sorted().prefix(5).joined(separator: ", "))); name another configuration. Nothing was changed.")
        }
        let rows = try session.query("SELECT key, value FROM \(PostgresSQL.quote(location.namespace)).osd_metadata")
        return Dictionary(rows.map { PostgresRowReader($0) }.map { ($0._string(0), $0._string(1)) }, uniquingKeysWith: { a, _ in a })
    }

    /// What opening a namespace found: its identifier, whether it has ``PostgresSwiftSum``'s
    /// aggregate, and the property lists its history's update masks refer to.
    struct Opened {
        let identifier: String
        let sumsAsSwift: Bool
        let historyFields: HistoryFieldLayouts
    }

    /// The query counting the rows that hold data where a migration would delete it.
    private static func countOfRowsHoldingData(_ removal: DestructiveChanges.Removal, namespace: String) -> String {
        switch removal {
        case .model(let entity): "SELECT count(*) FROM \(namespace).\(PostgresSQL.quote(entity))"
        case .property(let entity, let name): "SELECT count(*) FROM \(namespace).\(PostgresSQL.quote(entity)) WHERE \(PostgresSQL.quote(name)) IS NOT NULL"
        case .link(let table, _): "SELECT count(*) FROM \(namespace).\(PostgresSQL.quote(table))"
        }
    }

    /// Checks a recorded namespace against the container's models, migrating it when the changes
    /// are ones a lightweight migration makes.
    private static func check(
        _ metadata: [String: String], against models: StoredSchema, tables: [String: PostgresTable], namespace: String,
        location: PostgresLocation, allowsSave: Bool, allowsDestructiveMigration: Bool, on session: PostgresSession
    ) throws -> Opened {
        let format = metadata["format"].flatMap { Int64($0) } ?? 0
        guard format <= formatVersion else {
            throw SwiftDataError(.storeFromNewerVersion, reason: "PostgreSQL \(location.displayName) has format \(format); this version of OpenSwiftData reads up to \(formatVersion). Nothing was changed.")
        }
        let recorded = try recordedSchema(metadata, location: location)
        if recorded.differences(from: models).isEmpty {
            try checkTablesExist(tables, location: location, on: session)
            try checkColumnTypes(tables, location: location, on: session)
        } else {
            if !MigrationPlanRunner.mayOpen(storedAt: recorded.version, at: models.version),
               let stored = recorded.version, let current = models.version {
                throw SwiftDataError(.backwardMigration, reason: "PostgreSQL \(location.displayName) was written by version \(stored) of the schema, newer than \(current). Nothing was changed. To go back, open it with a SchemaMigrationPlan that has a stage from version \(stored) to \(current).")
            }
            // Not one model in common: the namespace is another app's, not an earlier version of this one.
            guard recorded.entities.isEmpty || recorded.entities.contains(where: { tables[$0.name] != nil }) else {
                let differences = recorded.differences(from: models).prefix(5).joined(separator: "; ")
                throw SwiftDataError(.schemaMismatch, reason: "PostgreSQL \(location.displayName) holds other models, none of them the container's (\(differences)); name another configuration. Nothing was changed.")
            }
            guard allowsSave else {
                throw SwiftDataError(.schemaMismatch, reason: "PostgreSQL \(location.displayName) was written by different models and needs a migration, but the configuration does not allow saves. Nothing was changed.")
            }
            let migration = try PostgresMigration(from: recorded, to: tables, namespace: namespace, place: location.displayName) { table, column in
                let condition = column.map { " WHERE \(PostgresSQL.quote($0)) IS NULL" } ?? ""
                let rows = try session.query("SELECT count(*) FROM \(namespace).\(PostgresSQL.quote(table))\(condition)")
                return rows.first.map { PostgresRowReader($0)._int64(0) } ?? 0
            }
            if !allowsDestructiveMigration {
                try DestructiveChanges(from: recorded, to: models).refuse(place: "PostgreSQL \(location.displayName)") { removal in
                    let rows = try session.query(countOfRowsHoldingData(removal, namespace: namespace))
                    return rows.first.map { PostgresRowReader($0)._int64(0) } ?? 0
                }
            }
            let started = StoreObserver.now()
            try migration.run(on: session)
            StoreObserver.opening?.migratedLightly(store: location.displayName, changes: recorded.differences(from: models), since: started)
            var bindings = PostgresBindings()
            bindings.append(try models.json())
            try session.query("UPDATE \(namespace).osd_metadata SET value = $1 WHERE key = 'schema'", bindings)
        }
        if metadata["historyNext"] == nil, allowsSave {
            // A namespace from before the history counter: it starts after every number used.
            try session.execute("""
                INSERT INTO \(namespace).osd_metadata (key, value)
                SELECT 'historyNext', greatest(coalesce(max(id), 0), (SELECT value::int8 FROM \(namespace).osd_metadata WHERE key = 'historyDeletedThrough'))::text
                FROM \(namespace).osd_history ON CONFLICT (key) DO NOTHING
                """)
        }
        if metadata["historyToken"] == nil, allowsSave {
            // A namespace from before saves carried a token (see PostgresBackend+CommitInDoubt).
            try session.execute("ALTER TABLE \(namespace).osd_history ADD COLUMN IF NOT EXISTS token BIGINT")
            try session.execute("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ('historyToken', '1') ON CONFLICT (key) DO NOTHING")
        }
        if metadata["textIndexes"] != "nfc", allowsSave {
            try indexTextByItsNFCForm(tables, namespace: namespace, location: location, on: session)
        }
        if metadata["indexTies"] != "key", allowsSave {
            // Regular indexes from before they ended with the key (see
            // `PostgresTableDDL.declaredIndexes`): made again, so that a sort by an indexed
            // attribute reads rows that tie in key order from the index.
            var bindings = PostgresBindings()
            bindings.append(location.namespace)
            let endingWithKey = Set(try session.query("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%, _pk)'", bindings)
                .map { PostgresRowReader($0)._string(0) })
            for table in tables.values.sorted(by: { $0.table < $1.table }) {
                for index in table.ddl.declaredIndexes where !index.isUnique && !endingWithKey.contains(index.rawName) {
                    try session.execute("DROP INDEX IF EXISTS \(namespace).\(index.name)")
                    try session.execute(index.createStatement)
                }
            }
            try session.execute("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ('indexTies', 'key') ON CONFLICT (key) DO UPDATE SET value = 'key'")
        }
        if metadata["decimalNaN"] != "first", allowsSave {
            // A Decimal NaN sorts before every number, as Foundation orders it (its bytes were
            // 0x03, after them; see OrderedDecimalCoding).
            for table in tables.values.sorted(by: { $0.table < $1.table }) {
                for (index, field) in table.entity.fields.enumerated() where field.storage == .decimal {
                    guard let column = table.columns[index] else { continue }
                    try session.execute("UPDATE \(table.table) SET \(column) = '\\x00'::bytea WHERE \(column) = '\\x03'::bytea")
                }
            }
            try session.execute("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ('decimalNaN', 'first') ON CONFLICT (key) DO UPDATE SET value = 'first'")
        }
        if metadata["uniqueNaN"] != "distinct", allowsSave {
            // A NaN in a unique floating-point attribute matches no other row, as `nil` does not:
            // those unique indexes are made again, leaving NaN rows out (fewer rows, so this
            // cannot fail on the rows there are).
            for table in tables.values.sorted(by: { $0.table < $1.table }) {
                for index in table.ddl.declaredIndexes where index.isUnique && index.coversFloatingPoint {
                    try session.execute("DROP INDEX IF EXISTS \(namespace).\(index.name)")
                    try session.execute(index.createStatement)
                }
            }
            try session.execute("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ('uniqueNaN', 'distinct') ON CONFLICT (key) DO UPDATE SET value = 'distinct'")
        }
        if metadata["swiftSum"] == nil, allowsSave {
            // A namespace from before floating-point sums ran in the server.
            try session.execute(PostgresSwiftSum.createStatement(namespace: namespace))
            try session.execute("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ('swiftSum', '1') ON CONFLICT (key) DO NOTHING")
        }
        var historyFields = try metadata[HistoryFieldLayouts.metadataKey].map { try HistoryFieldLayouts(json: $0, place: location.displayName) }
            ?? HistoryFieldLayouts()
        // The lists of the transactions to come, when they are not the ones recorded last.
        let next = (metadata["historyNext"].flatMap { Int64($0) } ?? 0) + 1
        if allowsSave, historyFields.record(HistoryFieldLayouts.fields(of: tables.values.map(\.entity)), from: next) {
            var bindings = PostgresBindings()
            bindings.append(HistoryFieldLayouts.metadataKey)
            bindings.append(try historyFields.json())
            try session.query("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", bindings)
        }
        return Opened(identifier: metadata["identifier"] ?? UUID().uuidString, sumsAsSwift: metadata["swiftSum"] != nil || allowsSave, historyFields: historyFields)
    }

    /// Rebuilds the unique and regular indexes of a namespace from before text was indexed by its
    /// NFC form (``PostgresTableDDL/declaredIndexes``), and records that it is.
    ///
    /// A unique index the rows already break (two values Swift calls equal, such as "é" written
    /// precomposed and decomposed) keeps its old form, byte by byte, and is reported; the
    /// namespace is tried again when it is next opened for saving, and indexes already rebuilt
    /// are left as they are.
    private static func indexTextByItsNFCForm(
        _ tables: [String: PostgresTable], namespace: String, location: PostgresLocation, on session: PostgresSession
    ) throws {
        var bindings = PostgresBindings()
        bindings.append(location.namespace)
        let normalized = Set(try session.query("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexdef ILIKE '%normalize(%'", bindings)
            .map { PostgresRowReader($0)._string(0) })
        var kept: [String] = []
        for table in tables.values.sorted(by: { $0.table < $1.table }) {
            for index in table.ddl.declaredIndexes where index.coversText && !normalized.contains(index.rawName) {
                try session.execute("SAVEPOINT osd_text_index")
                do {
                    try session.execute("DROP INDEX IF EXISTS \(namespace).\(index.name)")
                    try session.execute(index.createStatement)
                    try session.execute("RELEASE SAVEPOINT osd_text_index")
                } catch let error as SwiftDataError where index.isUnique && error == .uniquenessConflict {
                    try session.execute("ROLLBACK TO SAVEPOINT osd_text_index")
                    let detail = (error.reason ?? "\(error)").replacingOccurrences(of: " Nothing was saved.", with: "")
                    kept.append("\(index.name) of \(table.entity.name) (\(detail))")
                }
            }
        }
        guard kept.isEmpty else {
            Diagnostics.report("PostgreSQL \(location.displayName): unique values that differ only in their Unicode form (Swift calls them equal) are already stored, so these unique indexes still tell them apart byte by byte: \(kept.joined(separator: "; ")). Make the values distinct; the indexes are rebuilt when the store is next opened for saving.")
            return
        }
        try session.execute("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ('textIndexes', 'nfc') ON CONFLICT (key) DO UPDATE SET value = 'nfc'")
    }

    /// The models a namespace's metadata records.
    static func recordedSchema(_ metadata: [String: String], location: PostgresLocation) throws -> StoredSchema {
        do {
            guard let json = metadata["schema"] else { throw CocoaError(.coderValueNotFound) }
            return try JSONDecoder().decode(StoredSchema.self, from: Data(json.utf8))
        } catch {
            throw SwiftDataError(.storeIsCorrupt, reason: "PostgreSQL \(location.displayName) has an unreadable schema record (\(error)). Nothing was changed.")
        }
    }

    /// Creates the namespace, its sequences, tables, indexes, history and sum aggregate, and records
    /// the schema. Without `historyFields`, the record of the history's property lists begins with
    /// the models the store is next opened with.
    static func create(
        _ session: PostgresSession, tables: [PostgresTableDDL], schema: StoredSchema, identifier: String, historyFields: HistoryFieldLayouts?,
        namespace: String
    ) throws {
        try session.execute("CREATE SCHEMA \(namespace)")
        try session.execute("CREATE TABLE \(namespace).osd_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        try session.execute("CREATE TABLE \(namespace).osd_history (id BIGINT PRIMARY KEY, timestamp DOUBLE PRECISION NOT NULL, author TEXT, bundle TEXT NOT NULL, process TEXT NOT NULL, origin BIGINT NOT NULL, changes BYTEA NOT NULL, token BIGINT)")
        for sequence in Set(tables.map(\.keySequence)).sorted() {
            try session.execute("CREATE SEQUENCE \(sequence)")
        }
        for table in tables.sorted(by: { $0.table < $1.table }) {
            for statement in table.createStatements { try session.execute(statement) }
        }
        try session.execute(PostgresSwiftSum.createStatement(namespace: namespace))
        var records = [("format", String(formatVersion)), ("schema", try schema.json()), ("identifier", identifier), ("historyDeletedThrough", "0"), ("historyNext", "0"), ("historyToken", "1"), ("textIndexes", "nfc"), ("indexTies", "key"), ("decimalNaN", "first"), ("uniqueNaN", "distinct"), ("swiftSum", "1")]
        if let historyFields { records.append((HistoryFieldLayouts.metadataKey, try historyFields.json())) }
        for (key, value) in records {
            var bindings = PostgresBindings()
            bindings.append(key)
            bindings.append(value)
            try session.query("INSERT INTO \(namespace).osd_metadata (key, value) VALUES ($1, $2)", bindings)
        }
    }
}
