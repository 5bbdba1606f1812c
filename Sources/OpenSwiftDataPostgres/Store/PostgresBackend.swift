import Foundation
import OpenSwiftData
import PostgresNIO

/// The PostgreSQL store: a configuration's models in tables of one PostgreSQL schema (namespace),
/// reached through one connection whose use a lock serializes (saves, and reads that find it free)
/// and a pool of readers (reads that find it busy), with the schema recorded in the namespace and
/// other connections' saves announced by `NOTIFY`.
///
/// Opening never changes a namespace it cannot use: one that holds other tables, another
/// version's format, or other models is refused with nothing written.
final class PostgresBackend: @unchecked Sendable {
    // @unchecked Sendable: the session's use is serialized by `lock`; `sightings`, `readers`,
    // `waitingSaves` and `unsettledSaves` lock themselves; everything else is immutable.

    /// The on-server format this version writes. A namespace with a larger number is refused.
    static let formatVersion: Int64 = 1

    let schema: Schema
    let location: PostgresLocation
    let tables: [String: PostgresTable]
    let identifier: String
    /// Whether the namespace has ``PostgresSwiftSum``'s aggregate (one from before it that the
    /// store could not change has not).
    let sumsAsSwift: Bool
    /// The property lists the history's update masks refer to, as the store was opened.
    let historyFieldLayouts: HistoryFieldLayouts
    /// Whether the store refuses saves (its configuration does not allow them).
    let isReadOnly: Bool
    /// The quoted namespace.
    let namespace: String
    /// The channel other connections' saves are announced on.
    let channel: String
    let session: PostgresSession
    /// Whether the session is the store's own (not a migration plan's, which the plan closes).
    let ownsSession: Bool
    /// Serializes the store's use of its session: a save's statements run as one transaction.
    let lock = NSRecursiveLock()
    /// What the store knows of other connections' commits.
    let sightings = ExternalCommitSightings()
    /// Connections for reads that find `session` busy, or `nil` when every read waits for it.
    let readers: ConnectionPool<PostgresSession>?
    /// The statement a reader runs after each read: the number of the last history transaction.
    let historyCounterSQL: String
    /// The same number as a column of a fetch's rows (``forEachRow(_:attributes:_:)``), read in the
    /// fetch's own snapshot, so that a reader needs no second statement. A fetch on the store's own
    /// connection, which hears other connections' commits, selects it too and leaves it unread:
    /// one index look-up, where a second shape of every fetch would double the statements each
    /// connection prepares.
    let historyCounterColumn: String
    /// For each entity, the statements that remove references to its deleted rows (bound to an
    /// array of keys): foreign keys set to NULL, link-table rows deleted.
    let referenceCleanup: [String: [ReferenceCleanup]]
    /// The statement that records a save's history transaction (``record(_:author:origin:on:)``).
    let recordSQL: String
    /// For each table's one-row insert, the statement that makes the insert and records the
    /// history transaction at once (a save of one new row is then one statement).
    let recordSQLAfterInsert: [String: String]
    /// For each entity with one uniqueness constraint, the statement that saves one new model of it
    /// as an upsert with its history record (``pendingSave(_:)``).
    let upsertRecordingSQL: [String: String]
    /// For each entity with one uniqueness constraint, the statements that save several new
    /// models of it as upserts, one history transaction each, by number of models.
    let upsertBatches: UpsertBatchStatements
    /// For each entity with an upsert statement, the update's history record its upserts pass
    /// (``updateRecordArguments(for:)``), made once.
    let upsertUpdateRecords: [String: [PostgresData]]
    /// Keys drawn ahead for inserts.
    let keyPool = PostgresKeyPool()
    /// How each entity's rows are deleted with their delete rules applied.
    let deleteRules: [String: PostgresDeleteRules]
    /// Saves whose outcome was unknown (``settle(_:token:inserted:)``).
    let unsettledSaves = LockedValue<[UnsettledSave]>([])
    /// Saves of one statement each, waiting to go to the server together (``save(_:of:)``).
    let waitingSaves = WaitingSaves()

    /// Connects to the server and opens the namespace.
    ///
    /// - Parameters:
    ///   - readConnections: The most connections opened for reads that find the store's own busy.
    ///   - session: A session to use instead of a connection of the store's own: a migration
    ///     plan's, whose stages run inside its transaction. Its store hears no other connections'
    ///     saves and has no readers.
    ///   - allowsDestructiveMigration: Whether a lightweight migration may delete stored data.
    init(
        location: PostgresLocation, schema: Schema, allowsSave: Bool, allowsDestructiveMigration: Bool = true,
        readConnections: Int = 0, session: PostgresSession? = nil
    ) throws {
        self.schema = schema
        self.isReadOnly = !allowsSave
        self.location = location
        try ReservedNames.check(schema, caseInsensitive: false)
        let namespace = PostgresSQL.quote(location.namespace)
        self.namespace = namespace
        let tables = Dictionary(schema.entities.map { ($0.name, PostgresTable(entity: $0, namespace: namespace)) }, uniquingKeysWith: { a, _ in a })
        self.tables = tables
        self.referenceCleanup = Self.referenceCleanup(tables, namespace: namespace)
        self.deleteRules = tables.mapValues { PostgresDeleteRules(table: $0, tables: tables) }
        let channel = "osd_" + location.namespace
        self.channel = channel
        self.recordSQL = Self.recordSQL(namespace: namespace, channel: channel)
        self.recordSQLAfterInsert = Dictionary(tables.values.map { table in
            (table.preparedInsertSQL, Self.recordSQL(namespace: namespace, channel: channel, after: (table.preparedInsertSQL, table.preparedInsertParameters)))
        }, uniquingKeysWith: { first, _ in first })
        self.upsertBatches = UpsertBatchStatements(tables: tables, namespace: namespace, channel: channel)
        self.upsertUpdateRecords = tables.mapValues(Self.updateRecordArguments(for:))
        self.historyCounterSQL = "SELECT value::int8 FROM \(namespace).osd_metadata WHERE key = 'historyNext'"
        self.historyCounterColumn = "(\(historyCounterSQL))"
        let observer = StoreObserver.opening
        // Readers never open transactions and never listen; a lost one connects again at its next read.
        // They open after the store has, so a new one waits for a restarting server as a lost one does.
        self.readers = session == nil && readConnections > 0 ? ConnectionPool(maximum: readConnections, observer: observer) { try PostgresSession(location, observer: observer, waitsForServer: true) } : nil
        let sightings = sightings
        self.ownsSession = session == nil
        self.session = try session ?? PostgresSession(location, observer: observer, listeningOn: channel) { sightings.announced() }
        let opened = try Self.open(
            self.session, tables: tables, schema: StoredSchema(schema), namespace: namespace, location: location,
            allowsSave: allowsSave, allowsDestructiveMigration: allowsDestructiveMigration)
        (identifier, sumsAsSwift, historyFieldLayouts) = (opened.identifier, opened.sumsAsSwift, opened.historyFields)
        // Checked outside any transaction: only the store's own connection saves one model by one
        // statement (``pendingSave(_:)``).
        self.upsertRecordingSQL = try Self.upsertStatements(
            tables, namespace: namespace, channel: channel, on: allowsSave && session == nil ? self.session : nil)
    }

    /// The table of an entity.
    func table(for entityName: String) throws -> PostgresTable {
        guard let table = tables[entityName] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(entityName) is not in the container's schema")
        }
        return table
    }

    /// Closes the store's connection once no call is using it, and each reader's when its read
    /// ends; every later call throws ``SwiftDataError/storeUnavailable``. Closing a closed store
    /// does nothing.
    func close() {
        let reason = SwiftDataError(.storeUnavailable, reason: "The PostgreSQL store \(location.displayName) was closed (ModelContainer.close()); open a new container to use it again.")
        lock.lock()
        if ownsSession { session.shutDown(reason) }
        lock.unlock()
        readers?.close(reason: reason) { $0.shutDown(reason) }
    }

    /// Runs `body` with exclusive use of the session.
    func withSession<R>(_ body: (PostgresSession) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(session)
    }

    /// Runs a read on the store's connection when it is free (or the store has no readers), and
    /// otherwise on a reader of the pool, which then also reads the history counter
    /// (``ExternalCommitSightings``).
    func read(_ sql: String, _ bindings: PostgresBindings) throws -> [PostgresRow] {
        try read(.parsed(sql, bindings))
    }

    /// Runs a read (see ``read(_:_:)``). When another program changed the type of a column the
    /// read's prepared statement returns, the server refuses the statement
    /// (``PostgresFailure/isStalePlan(_:)``) and the session forgets it: the read runs once more,
    /// prepared anew, unless another container's migration explains the change. Whether the
    /// columns still have types the store reads is checked where the rows are read
    /// (``PostgresTable/checkTypes(of:properties:location:keyed:)``).
    ///
    /// - Parameter counterColumn: The column of the rows that holds the history counter
    ///   (``historyCounterColumn``), if the statement selects it: a reader then reads the counter
    ///   from the first row, and runs the counter's statement only when there is no row.
    func read(_ statement: PostgresStatement, counterColumn: Int? = nil) throws -> [PostgresRow] {
        do {
            return try readAsIs(statement, counterColumn: counterColumn)
        } catch let error as SwiftDataError where PostgresFailure.isStalePlan(error) {
            let diagnosis = diagnosed(error)
            guard (diagnosis as? SwiftDataError)?.reason == error.reason else { throw diagnosis }
            do {
                return try readAsIs(statement, counterColumn: counterColumn)
            } catch {
                throw diagnosed(error)
            }
        } catch {
            throw diagnosed(error)
        }
    }

    /// ``read(_:)``, its errors as the server gave them.
    private func readAsIs(_ statement: PostgresStatement, counterColumn: Int? = nil) throws -> [PostgresRow] {
        if let readers {
            guard lock.try() else {
                return try readers.withConnection { reader in
                    if let counterColumn {
                        let rows = try reader.read([statement])[0]
                        if let first = rows.first, counterColumn < first.count {
                            noteCounter(PostgresRowReader(first), column: counterColumn)
                        } else {
                            try reader.read([.prepared(historyCounterSQL, [])])[0].first.map { noteCounter(PostgresRowReader($0), column: 0) }
                        }
                        return rows
                    }
                    let replies = try reader.read([statement, .prepared(historyCounterSQL, [])])
                    replies[1].first.map { noteCounter(PostgresRowReader($0), column: 0) }
                    return replies[0]
                }
            }
        } else {
            lock.lock()
        }
        defer { lock.unlock() }
        return try session.read([statement])[0]
    }

    /// Takes note of the history counter a reader read (``ExternalCommitSightings/read(counter:)``).
    private func noteCounter(_ row: PostgresRowReader, column: Int) {
        let column = Int32(column)
        guard !row._isNull(column) else { return }
        sightings.read(counter: row._int64(column))
    }

    /// Runs `body` in one transaction: all of it or, on any error, none of it.
    func transaction<R>(_ body: (PostgresSession) throws -> R) throws -> R {
        do {
            return try withSession { session in
                try session.begin()
                do {
                    let result = try body(session)
                    try session.commit()
                    return result
                } catch {
                    session.rollback()
                    throw error
                }
            }
        } catch {
            throw diagnosed(error)
        }
    }

    /// `error`, or, when it names a table or column the namespace lacks (SQLSTATE 42P01, 42703)
    /// or a column whose type changed (``PostgresFailure/isStalePlan(_:)``) because another
    /// container migrated the store while this one had it open, the schema mismatch that says so
    /// (``StoredSchema/migratedWhileOpen(models:place:cause:)``). Called with the session free: it
    /// reads the schema record.
    func diagnosed(_ error: any Error) -> any Error {
        guard let failure = error as? SwiftDataError, let reason = failure.reason,
              reason.hasPrefix("PostgreSQL 42P01:") || reason.hasPrefix("PostgreSQL 42703:") || PostgresFailure.isStalePlan(failure)
        else { return error }
        let recorded: StoredSchema
        do {
            let rows = try readAsIs(.parsed("SELECT value FROM \(namespace).osd_metadata WHERE key = 'schema'", PostgresBindings()))
            recorded = try Self.recordedSchema(["schema": rows.first.map { PostgresRowReader($0)._string(0) } ?? ""], location: location)
        } catch {
            // No readable record to compare with: the server's own error is the one to report.
            return failure
        }
        return recorded.migratedWhileOpen(models: StoredSchema(schema), place: location.displayName, cause: reason) ?? failure
    }

    /// The statements that remove every reference to deleted rows of each entity.
    private static func referenceCleanup(_ tables: [String: PostgresTable], namespace: String) -> [String: [ReferenceCleanup]] {
        ReferenceCleanup.byTarget(in: tables.values.map(\.entity)) { referring, property, _ in
            tables[referring].map { "UPDATE \($0.table) SET \($0.column(property)) = NULL WHERE \($0.column(property)) = ANY($1::int8[])" }
        } deleteLinks: { link, column, _ in
            "DELETE FROM \(namespace).\(PostgresSQL.quote(link.table)) WHERE \(column) = ANY($1::int8[])"
        }
    }

    /// Deletes every row of every entity, in one transaction; the history goes too.
    func eraseAll() throws {
        try transaction { session in
            for table in tables.values.sorted(by: { $0.table < $1.table }) {
                try session.execute("DELETE FROM \(table.table)")
                for link in table.ownedLinkTables { try session.execute("DELETE FROM \(link)") }
            }
            try lockHistory(on: session)
            if let last = try session.query("SELECT max(id) FROM \(namespace).osd_history").first.map(PostgresRowReader.init), !last._isNull(0) {
                try markHistoryDeleted(through: last._int64(0), on: session)
                try session.execute("DELETE FROM \(namespace).osd_history")
            }
            try session.execute("NOTIFY \(PostgresSQL.quote(channel))")
        }
    }

    /// A number that changes whenever the store learns of another connection's commit.
    func externalCommitMarker() throws -> Int64? { sightings.marker }

    /// Notifications of other connections' commits arrive on the store's connection ahead of the
    /// reply to its next statement, and a reader reads the history counter after its read, so the
    /// marker is current only after the read.
    var externalCommitMarkerLags: Bool { true }
}

/// Other connections' commits are announced by the server (LISTEN/NOTIFY on the store's channel).
extension PostgresBackend: ExternalCommitWatchingStore {}

/// Each call holds the store's own connection or one of its readers: model actors on the
/// container run at most that many jobs at once.
extension PostgresBackend: ConnectionBoundStore {
    var connections: Int { 1 + (readers?.maximum ?? 0) }
}
