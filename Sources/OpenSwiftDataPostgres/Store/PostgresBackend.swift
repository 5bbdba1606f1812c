import Foundation
import OpenSwiftData
import PostgresNIO

/// The PostgreSQL store: a configuration's models in tables of one PostgreSQL schema (namespace),
/// reached through one connection whose use a lock serializes, with the schema recorded in the
/// namespace and other connections' saves announced by `NOTIFY`.
///
/// Opening never changes a namespace it cannot use: one that holds other tables, another
/// version's format, or other models is refused with nothing written.
final class PostgresBackend: @unchecked Sendable {
    // @unchecked Sendable: the session serializes its own use; `externalCommits` is atomic through
    // its lock; `unsettledSaves` is used only while `lock` is held; everything else is immutable.

    /// The on-server format this version writes. A namespace with a larger number is refused.
    static let formatVersion: Int64 = 1

    let schema: Schema
    let location: PostgresLocation
    let tables: [String: PostgresTable]
    let identifier: String
    /// Whether the store refuses saves (its configuration does not allow them).
    let isReadOnly: Bool
    /// The quoted namespace.
    let namespace: String
    /// The channel other connections' saves are announced on.
    let channel: String
    let session: PostgresSession
    /// Serializes the store's use of its session: a save's statements run as one transaction.
    let lock = NSRecursiveLock()
    /// How many saves of other connections were announced since the store opened.
    private let externalCommits = ExternalCommitCounter()
    /// For each entity, the statements that remove references to its deleted rows (bound to an
    /// array of keys): foreign keys set to NULL, link-table rows deleted.
    let referenceCleanup: [String: [ReferenceCleanup]]
    /// The statement that records a save's history transaction (``record(_:author:origin:on:)``).
    let recordSQL: String
    /// For each table's one-row insert, the statement that makes the insert and records the
    /// history transaction at once (a save of one new row is then one statement).
    let recordSQLAfterInsert: [String: String]
    /// Keys drawn ahead for inserts.
    let keyPool = PostgresKeyPool()
    /// How each entity's rows are deleted with their delete rules applied.
    let deleteRules: [String: PostgresDeleteRules]
    /// Saves whose outcome was unknown (``settle(_:token:inserted:)``); used only while `lock`
    /// is held.
    var unsettledSaves: [UnsettledSave] = []

    /// Connects to the server and opens the namespace.
    ///
    /// - Parameter session: A session to use instead of a connection of the store's own: a
    ///   migration plan's, whose stages run inside its transaction. Its store hears no other
    ///   connections' saves.
    init(location: PostgresLocation, schema: Schema, allowsSave: Bool, session: PostgresSession? = nil) throws {
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
        let counter = externalCommits
        self.session = try session ?? PostgresSession(location, listeningOn: channel) { counter.increment() }
        self.identifier = try Self.open(self.session, tables: tables, schema: StoredSchema(schema), namespace: namespace, location: location, allowsSave: allowsSave)
    }

    /// The table of an entity.
    func table(for entityName: String) throws -> PostgresTable {
        guard let table = tables[entityName] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(entityName) is not in the container's schema")
        }
        return table
    }

    /// Runs `body` with exclusive use of the session.
    func withSession<R>(_ body: (PostgresSession) throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(session)
    }

    /// Runs `body` in one transaction: all of it or, on any error, none of it.
    func transaction<R>(_ body: (PostgresSession) throws -> R) throws -> R {
        try withSession { session in
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

    /// The number of announced saves by other connections.
    func externalCommitMarker() throws -> Int64? { externalCommits.value }

    /// Notifications of other connections' commits arrive on the store's connection ahead of the
    /// reply to its next statement, so the marker is current only after a round trip.
    var externalCommitMarkerLags: Bool { true }
}

/// A counter that event-loop callbacks increment and the store reads.
final class ExternalCommitCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is used only inside `lock`.
    private let lock = NSLock()
    private var count: Int64 = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
