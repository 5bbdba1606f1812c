import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded SQLite store: one file in WAL mode, one writer connection serialized by a lock, a
/// pool of reader connections that read in parallel, cached prepared statements, the schema
/// recorded in the file.
///
/// Opening never modifies a file it cannot use: the header and the recorded schema are checked
/// through a read-only connection first.
final class SQLiteStore: @unchecked Sendable {
    // @unchecked Sendable: every use of `connection` and of `updateSQLCache` happens inside `lock`;
    // each reader connection is used by one caller at a time, handed out by `readers`.

    /// The on-disk format this version writes. A store with a larger number is refused.
    static let formatVersion: Int64 = 1

    /// The settings of every writable store connection: WAL, `synchronous=NORMAL` (durable at
    /// checkpoints, never corrupt), foreign keys on, an 8 MB page cache, temporary tables in memory.
    /// The benchmark applies the same settings to its other contenders.
    static let pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY; PRAGMA secure_delete=FAST"

    let schema: Schema
    let layouts: [String: TableLayout]
    let identifier: String
    /// The property lists the history's update masks refer to, as the store was opened.
    let historyFieldLayouts: HistoryFieldLayouts
    let path: String
    /// The file that says a migration plan is running (``MigrationJournal/planPath(of:)``), `nil`
    /// for an in-memory store.
    private let planPath: String?
    let isReadOnly: Bool
    private let connection: SQLiteConnection
    private let lock = NSLock()
    /// Whether ``close()`` closed the store; read and written inside `lock`.
    private var isClosed = false
    /// The writer connection named as in use by the thread that holds `lock` (``ConnectionInUse``),
    /// made by the first call that takes it; read and written inside `lock`, one access at a time.
    @exclusivity(unchecked) private var writerInUse: ConnectionInUse?
    /// Read-only connections for fetches, or `nil` when reads share the writer connection (an
    /// in-memory store, or a read-only file).
    private let readers: ConnectionPool<SQLiteConnection>?
    private var updateSQLCache: [String: [UInt64: String?]] = [:]
    /// For each entity, the statements that remove references to one of its deleted rows (bound
    /// to its primary key): foreign keys set to NULL, link-table rows deleted.
    let referenceCleanup: [String: [ReferenceCleanup]]
    /// The same statements for every doomed row of an entity at once (see
    /// ``deleteApplyingRules(_:history:on:)``).
    let setReferenceCleanup: [String: [ReferenceCleanup]]
    /// The statements of delete rules applied in SQL (``deleteApplyingRules(_:history:on:)``).
    let deleteRuleStatements: DeleteRuleStatements
    /// Whether the table of ``CompanionRecord``s is known to exist (it is made by the first write).
    let companionTableExists = LockedValue(false)

    /// Opens or creates the store at `url`, or an in-memory store when `url` is `nil`.
    init(url: URL?, schema: Schema, allowsSave: Bool, allowsDestructiveMigration: Bool = true) throws {
        // Looked up once per process, when a store opens rather than in its first save: finding
        // the main bundle reads the executable's whole directory.
        _ = HistoryLog.processIdentity
        self.schema = schema
        try ReservedNames.check(schema, caseInsensitive: true)
        let layouts = Dictionary(schema.entities.map { ($0.name, TableLayout(entity: $0)) }, uniquingKeysWith: { a, _ in a })
        self.layouts = layouts
        self.referenceCleanup = SQLiteStore.referenceCleanup(layouts) { _ in "= ?" }
        self.setReferenceCleanup = SQLiteStore.referenceCleanup(layouts) { target in
            "IN (SELECT k FROM \(SQLiteStore.doomedTable(root: layouts[target]?.entity.root.name ?? target)))"
        }
        self.deleteRuleStatements = DeleteRuleStatements(schema: schema, layouts: layouts)
        let models = StoredSchema(schema)
        planPath = url.map { MigrationJournal.planPath(of: $0.path) }
        guard let url else {
            self.path = ":memory:"
            self.isReadOnly = false
            self.connection = try SQLiteConnection(path: path, readOnly: false, create: true)
            self.readers = nil
            self.identifier = UUID().uuidString
            try SQLiteStore.initialize(connection, layouts: layouts, schema: models, identifier: identifier)
            self.historyFieldLayouts = try Self.historyFields(connection, path: path)
            return
        }
        let path = url.path
        self.path = path
        // The file is inspected through a read-only connection, then created or migrated under the
        // write lock. Another connection (a second container, another process starting at the same
        // time) may create or migrate it in between: the write then finds the file changed, rolls
        // back, and the open starts again from the inspection.
        var attempt = 0
        while true {
            attempt += 1
            do {
                let opened = try Self.openFile(at: url, layouts: layouts, models: models, allowsSave: allowsSave, allowsDestructiveMigration: allowsDestructiveMigration)
                let historyFields = try Self.historyFields(opened.connection, path: path)
                (connection, readers, identifier, isReadOnly) = (opened.connection, opened.readers, opened.identifier, opened.isReadOnly)
                historyFieldLayouts = historyFields
                return
            } catch is ChangedWhileOpening where attempt < 10 {
                usleep(UInt32(attempt) * 10_000)
                continue
            } catch is ChangedWhileOpening {
                throw SwiftDataError(.storeIsBusy, reason: "Other connections kept creating or migrating the store at \(path) while it opened. The file was not changed by this open; try again.")
            }
        }
    }

    /// Runs `body` with exclusive use of the connection, turning SQLite errors into public ones.
    ///
    /// A call made inside another call's `body` on the same thread (a to-one relationship resolved
    /// while a fetch reads its rows) runs on the connection already in use: it takes no lock a
    /// second time and checks out no second reader, so it can neither deadlock nor drain the pool.
    ///
    /// Inlined into its few callers: called out of line, a save's body was a closure that copied
    /// its change set.
    @inline(__always)
    func withConnection<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        if let inUse = ConnectionInUse.connection(for: self) { return try body(inUse) }
        lock.lock()
        defer { lock.unlock() }
        if isClosed { throw closedError }
        do {
            if let inUse = writerInUse { return try inUse.whileInUse(body) }
            let inUse = ConnectionInUse(store: self, connection: connection)
            writerInUse = inUse
            return try inUse.whileInUse(body)
        } catch let error as SQLiteError {
            throw swiftDataError(for: error, on: connection)
        }
    }

    /// Runs `body` with a connection for reading: a pooled reader, so that reads run in parallel
    /// with each other and with a save, or the writer connection when the store has no readers.
    /// Inside another call's `body`, the connection already in use.
    func withReader<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        if let inUse = ConnectionInUse.connection(for: self) { return try body(inUse) }
        guard let readers else { return try withConnection(body) }
        do {
            return try readers.withConnection { connection in
                do {
                    return try ConnectionInUse(store: self, connection: connection).whileInUse(body)
                } catch let error as SQLiteError {
                    throw swiftDataError(for: error, on: connection)
                }
            }
        } catch let error as SQLiteError {
            throw error.swiftDataError
        }
    }

    /// Closes the store's connections: the writer once no call is using it, each reader when its
    /// read ends. Every later call throws ``SwiftDataError/storeUnavailable``. An in-memory store's
    /// data goes with its connection. Closing a closed store does nothing.
    func close() {
        // Readers first: the last connection to close folds the write-ahead log into the file
        // and removes it, which only the writer can do.
        readers?.close(reason: closedError) { $0.close() }
        lock.lock()
        if !isClosed {
            isClosed = true
            connection.close()
        }
        lock.unlock()
    }

    /// The error of a call made after ``close()``.
    private var closedError: SwiftDataError {
        SwiftDataError(.storeUnavailable, reason: "The store at \(path) was closed (ModelContainer.close()); open a new container to use it again.")
    }

    /// Throws ``SwiftDataError/storeUnavailable`` when the store file is no longer where the
    /// container opened it (moved, renamed or deleted while open). Called before each commit: SQLite
    /// would commit to the file it still holds, and the next container on the path would not find
    /// the save. The caller's transaction then rolls back, and nothing is reported saved.
    func checkFileInPlace(_ connection: SQLiteConnection) throws {
        guard connection.fileHasMoved else { return }
        throw SwiftDataError(.storeUnavailable, reason: """
            The store file \(path) was moved or deleted while the container had it open; nothing was saved. \
            Put the file back, or open a container on the file where it is now.
            """)
    }

    /// Throws ``SwiftDataError/storeIsBusy`` when another container's `SchemaMigrationPlan` is
    /// migrating the store, or one was interrupted (``MigrationJournal/refusalOfSaves(to:)``): the
    /// plan's failure, or the next open, puts back the store as it was before the plan, which would
    /// undo the save. Called at the start of each write transaction, under SQLite's write lock; the
    /// caller's transaction then rolls back.
    ///
    /// A plan creates its file, then commits a change and copies the store only after that, so a
    /// save that began before the file existed commits first, into the copy, and every later save
    /// finds the file. Every save looks (one `access`, about a microsecond): a shortcut that looked
    /// only when the connection's data version had moved since its last save let saves through
    /// after the plan's copy, which the plan's failure then undid. Only a file that is not there
    /// lets the save through: one that cannot be looked at refuses it.
    func checkNoPlanIsMigrating() throws {
        guard let planPath, DurableFile.mayExist(planPath), let refusal = MigrationJournal.refusalOfSaves(to: path) else { return }
        throw SwiftDataError(.storeIsBusy, reason: refusal)
    }

    /// The table layout of an entity.
    func layout(for entityName: String) throws -> TableLayout {
        guard let layout = layouts[entityName] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(entityName) is not in the container's schema")
        }
        return layout
    }

    /// The cached `UPDATE` text for the changed-property mask of an entity, `nil` when no changed
    /// property has a column. Call inside `withConnection`. At most ``updateTextsPerEntity`` masks
    /// of an entity are kept: saves that change ever new sets of properties build the rest.
    func updateSQL(_ layout: TableLayout, mask: UInt64) -> String? {
        if let sql = updateSQLCache[layout.entity.name]?[mask] { return sql }
        let sql = layout.updateSQL(mask: mask)
        if updateSQLCache[layout.entity.name, default: [:]].count < Self.updateTextsPerEntity {
            updateSQLCache[layout.entity.name, default: [:]][mask] = sql
        }
        return sql
    }

    /// The most `UPDATE` texts kept per entity (one per set of changed properties).
    static let updateTextsPerEntity = 256

    /// The statements that remove every reference to a deleted row of each entity: `matching`
    /// completes the condition on the referring column, for the entity referred to (`= ?` for one key).
    private static func referenceCleanup(_ layouts: [String: TableLayout], matching: (String) -> String) -> [String: [ReferenceCleanup]] {
        ReferenceCleanup.byTarget(in: layouts.values.map(\.entity)) { referring, property, target in
            layouts[referring].map { "UPDATE \($0.table) SET \($0.column(property)) = NULL WHERE \($0.column(property)) \(matching(target))" }
        } deleteLinks: { link, column, target in
            "DELETE FROM \(SQL.quote(link.table)) WHERE \(column) \(matching(target))"
        }
    }

    /// Deletes every row of every entity, in one transaction.
    func eraseAll() throws {
        try withConnection { connection in
            try connection.writeTransaction {
                try checkNoPlanIsMigrating()
                for layout in layouts.values {
                    // Keys handed out before the erase are never handed out again.
                    if layout.sharedKeysTable == nil, let largest = try connection.integer("SELECT max(\(TableLayout.primaryKey)) FROM \(layout.table)") {
                        try SQLiteStore.raiseKeyFloor(of: layout, to: largest, on: connection)
                    }
                    try connection.execute("DELETE FROM \(layout.table)")
                    for table in layout.ownedLinkTables { try connection.execute("DELETE FROM \(SQL.quote(table))") }
                    if let keys = layout.sharedKeysTable { try connection.execute("DELETE FROM \(keys)") }
                }
                // The history goes too; tokens from before the erase are expired.
                if try SQLiteStore.hasHistory(connection), let last = try connection.integer("SELECT max(id) FROM osd_history") {
                    try SQLiteStore.markHistoryDeleted(through: last, on: connection)
                    // All but the newest row, which stays empty so that numbers keep growing.
                    try connection.execute("DELETE FROM osd_history WHERE id < \(last)")
                    try SQLiteStore.removeHistory([last], on: connection)
                }
                try checkFileInPlace(connection)
            }
        }
    }
}
