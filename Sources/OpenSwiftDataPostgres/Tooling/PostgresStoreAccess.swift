import Foundation
import OpenSwiftData
import PostgresNIO

/// A PostgreSQL store opened without its model classes, from the schema its namespace records:
/// what `osd` reads, exports and imports through. The PostgreSQL counterpart of `StoreFile`.
///
/// Opened for reading, everything it reads comes from one read-only transaction, so counts and
/// rows agree with each other, and nothing is changed. Opened for writing, it writes only inside
/// ``transaction(_:)``, all or nothing. Opening throws a ``SwiftDataError`` saying what is wrong: no
/// such namespace, not an OpenSwiftData store, written by a newer version, an unreadable schema
/// record.
package final class PostgresStoreAccess {
    /// The server, database and namespace, without the password.
    package let displayName: String
    /// The PostgreSQL schema (namespace) that holds the store's tables.
    package let namespace: String
    /// The schema the store records.
    package let schema: StoredSchema
    /// The store's format number.
    package let format: Int64
    /// The store's identifier, as persistent identifiers name it.
    package let identifier: String?
    let session: PostgresSession
    private let quotedNamespace: String
    /// The token of the history record the open transaction wrote, by which the server is asked
    /// whether it kept the transaction when the reply to its commit is lost.
    private var recordedToken: Int64?
    private let metadata: [String: String]

    /// How many rows one read or one `INSERT` holds.
    package static let batchRows = 1_000

    /// Opens the store of the configuration named `name` at `url`, for reading or for writing.
    package init(url: URL, name: String, writable: Bool = false) throws {
        let location = try PostgresLocation(PostgresStoreConfiguration(name: name, url: url, allowsSave: writable, maximumReadConnections: 0))
        displayName = location.displayName
        namespace = location.namespace
        quotedNamespace = PostgresSQL.quote(location.namespace)
        session = try PostgresSession(location)
        do {
            if !writable { try session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
            guard let metadata = try PostgresBackend.recordedMetadata(session, location: location) else {
                throw SwiftDataError(.storeIsReadOnly, reason: "There is no store at \(location.displayName): the database has no PostgreSQL schema \(location.namespace). Name the configuration with --name; a store is created by opening it with the app's models.")
            }
            self.metadata = metadata
            format = metadata["format"].flatMap { Int64($0) } ?? 0
            guard format <= PostgresBackend.formatVersion else {
                throw SwiftDataError(.storeFromNewerVersion, reason: "\(location.displayName) has format \(format); this version of OpenSwiftData reads up to \(PostgresBackend.formatVersion).")
            }
            schema = try PostgresBackend.recordedSchema(metadata, location: location)
            identifier = metadata["identifier"]
        } catch {
            // Closing the connection ends a read-only transaction: nothing to commit or roll back.
            session.close()
            throw error
        }
    }

    deinit {
        session.close()
    }

    /// The quoted, qualified name of a table of the namespace.
    package func table(_ name: String) -> String { "\(quotedNamespace).\(PostgresSQL.quote(name))" }

    /// The first column of each row a statement returns, as an integer.
    package func integers(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> [Int64] {
        try session.query(sql, bindings).map { PostgresRowReader($0)._int64(0) }
    }

    /// The number of rows of the table of the model named `entity`.
    package func count(_ entity: String) throws -> Int64 {
        try integers("SELECT count(*) FROM \(table(entity))").first ?? 0
    }

    /// How many history transactions the store keeps.
    package func historyTransactionCount() throws -> Int64 {
        try integers("SELECT count(*) FROM \(quotedNamespace).osd_history").first ?? 0
    }

    /// The bytes the namespace's tables take on the server, with their indexes and TOAST.
    package func size() throws -> Int64 {
        var bindings = PostgresBindings()
        bindings.append(namespace)
        return try integers("""
            SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8 FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'
            """, bindings).first ?? 0
    }

    /// Every column of the namespace's tables: table, column and PostgreSQL type name
    /// (`information_schema`'s `data_type`, such as `bigint`).
    package func columns() throws -> [(table: String, column: String, type: String)] {
        var bindings = PostgresBindings()
        bindings.append(namespace)
        return try session.query("SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = $1", bindings).map { row in
            let reader = PostgresRowReader(row)
            return (reader._string(0), reader._string(1), reader._string(2))
        }
    }

    /// The type name (as ``columns()`` gives it) of the column of a storage class.
    package static func columnType(_ storage: StorageClass) -> String {
        switch storage {
        case .integer, .unsignedInteger: "bigint"
        case .real, .date: "double precision"
        case .text, .json: "text"
        case .blob, .uuid, .decimal: "bytea"
        }
    }

    /// The last key the sequence of the class hierarchy rooted at `root` handed out (0 before
    /// the first), or `nil` when the sequence is missing.
    package func lastKey(root: String) throws -> Int64? {
        var bindings = PostgresBindings()
        bindings.append(namespace)
        bindings.append("osd_keys_\(root)")
        let exists = try integers("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind = 'S'", bindings).first ?? 0
        guard exists > 0, let state = try session.query("SELECT last_value, is_called FROM \(keySequence(root: root))").first.map(PostgresRowReader.init) else { return nil }
        return state._int64(1) != 0 ? state._int64(0) : state._int64(0) - 1
    }

    /// The history counter (the last number handed out) and the highest number in the history.
    package func historyCounter() throws -> (counter: Int64, highest: Int64)? {
        guard let counter = try metadataValue("historyNext") else { return nil }
        return (counter, try integers("SELECT coalesce(max(id), 0) FROM \(quotedNamespace).osd_history").first ?? 0)
    }

    /// A number recorded in `osd_metadata`, read now.
    private func metadataValue(_ key: String) throws -> Int64? {
        var bindings = PostgresBindings()
        bindings.append(key)
        guard let row = try session.query("SELECT value FROM \(quotedNamespace).osd_metadata WHERE key = $1", bindings).first else { return nil }
        return Int64(PostgresRowReader(row)._string(0))
    }

    // MARK: Reading rows

    /// Reads the rows of a model's table in key order, a thousand at a time: each row's key, then
    /// the given columns as stored values in the SQLite store's terms (a `Double` column as
    /// `.real`, text as `.text`, bytes as `.blob`), so that one decoder reads both stores.
    package func forEachRow(
        of entity: String, columns: [String], _ body: (_ key: Int64, _ values: [StoredValue]) throws -> Void
    ) throws {
        let selected = ([PostgresSQL.primaryKey] + columns.map(PostgresSQL.quote)).joined(separator: ", ")
        let sql = "SELECT \(selected) FROM \(table(entity)) WHERE \(PostgresSQL.primaryKey) > $1 ORDER BY \(PostgresSQL.primaryKey) LIMIT \(Self.batchRows)"
        var last = Int64.min
        while true {
            var bindings = PostgresBindings()
            bindings.append(last)
            let rows = try session.query(sql, bindings)
            for row in rows {
                let reader = PostgresRowReader(row)
                last = reader._int64(0)
                try body(last, columns.indices.map { reader.storedValue(Int32($0 + 1)) })
            }
            if rows.count < Self.batchRows { return }
        }
    }

    /// The pairs of a link table whose `from` column (`owner` or `target`) is one of `keys`: the
    /// other column's keys by `from` key, in ascending order.
    package func links(_ linkTable: String, from: String, to: String, among keys: [Int64]) throws -> [Int64: [Int64]] {
        var bindings = PostgresBindings()
        bindings.append(keys)
        let rows = try session.query("SELECT \(from), \(to) FROM \(table(linkTable)) WHERE \(from) = ANY($1::int8[]) ORDER BY \(from), \(to)", bindings)
        var pairs: [Int64: [Int64]] = [:]
        for row in rows {
            let reader = PostgresRowReader(row)
            pairs[reader._int64(0), default: []].append(reader._int64(1))
        }
        return pairs
    }

    // MARK: Writing

    /// Runs `body` in one transaction: everything it writes lands, or nothing does. If the
    /// connection is lost as the transaction commits and `body` recorded a history transaction
    /// (``recordInsertions(_:author:)``), the server is asked on a new connection whether it kept
    /// the transaction: kept, this returns; not kept, it throws saying nothing was written.
    @discardableResult
    package func transaction<R>(_ body: () throws -> R) throws -> R {
        try session.begin()
        recordedToken = nil
        let result: R
        do {
            result = try body()
        } catch {
            session.rollback()
            throw error
        }
        do {
            try session.commitReportingDoubt()
        } catch let doubt as PostgresCommitInDoubt {
            guard let token = recordedToken else { throw doubt.unknownOutcome }
            guard try session.settle(doubt, token: token, namespace: quotedNamespace, within: Self.settlingTime) != nil else {
                throw SwiftDataError(.storeUnavailable, reason: "The connection to \(displayName) was lost as the transaction committed, and the server did not keep it: nothing was written. \(doubt.failure.reason ?? "")")
            }
        }
        return result
    }

    /// How long a transaction whose commit reply was lost waits for the server to say whether it
    /// kept it.
    package static let settlingTime: TimeInterval = 10

    /// The sequence that hands out the keys of the class hierarchy rooted at `root`.
    private func keySequence(root: String) -> String { table("osd_keys_\(root)") }

    /// Reserves the keys `1 … max` that no row of a hierarchy can have yet, so that rows inserted
    /// with the given keys collide with no row and with no key a running app drew ahead (apps
    /// draw keys from the sequence before they write). Returns `false`, reserving nothing that
    /// matters, when a key is at or below the sequence's last key, when another process drew keys
    /// meanwhile, or when the range is far larger than the keys (sparse keys would waste it).
    package func reserveKeys(_ keys: [Int64], root: String) throws -> Bool {
        guard let lowest = keys.min(), let highest = keys.max() else { return true }
        let sequence = keySequence(root: root)
        guard let floor = try lastKey(root: root), lowest > floor else { return false }
        let needed = highest - floor
        guard needed <= Int64(keys.count) * 4 + 100_000 else { return false }
        var bindings = PostgresBindings()
        bindings.append(needed)
        guard let drawn = try session.query(
            "SELECT min(k), max(k), count(*) FROM (SELECT nextval(\(PostgresSQL.literal(sequence))) AS k FROM generate_series(1, $1::int8)) AS d", bindings
        ).first.map(PostgresRowReader.init) else { return false }
        // Contiguous from the floor up (distinct keys, as many as the range holds): no other
        // process drew a key in between.
        return drawn._int64(0) == floor + 1 && drawn._int64(1) == highest && drawn._int64(2) == needed
    }

    /// Draws `count` new keys for the class hierarchy rooted at `root`, in ascending order.
    package func drawKeys(_ count: Int, root: String) throws -> [Int64] {
        guard count > 0 else { return [] }
        var bindings = PostgresBindings()
        bindings.append(Int64(count))
        let keys = try integers("SELECT nextval(\(PostgresSQL.literal(keySequence(root: root)))) AS k FROM generate_series(1, $1::int8) ORDER BY k", bindings)
        guard keys.count == count else {
            throw SwiftDataError(.storeFailure, reason: "PostgreSQL handed out \(keys.count) keys of \(count) for \(root). Nothing was written.")
        }
        return keys
    }

    /// Inserts rows with their keys into a model's table, a thousand to a statement. `values`
    /// hold one stored value per attribute, in the SQLite store's terms (see
    /// ``forEachRow(of:columns:_:)``).
    package func insert(_ rows: [(key: Int64, values: [StoredValue])], into entity: String, attributes: [StoredSchema.Attribute]) throws {
        let names = ([PostgresSQL.primaryKey] + attributes.map { PostgresSQL.quote($0.name) }).joined(separator: ", ")
        let types = ["int8"] + attributes.map { PostgresSQL.parameterType($0.storage) }
        let perStatement = max(1, min(Self.batchRows, PostgresSQL.maximumParameters / types.count))
        var start = 0
        while start < rows.count {
            let batch = rows[start..<min(rows.count, start + perStatement)]
            var bindings = PostgresBindings(capacity: batch.count * types.count)
            var tuples: [String] = []
            for (offset, row) in batch.enumerated() {
                let first = offset * types.count
                tuples.append("(" + types.enumerated().map { "$\(first + $0.offset + 1)::\($0.element)" }.joined(separator: ", ") + ")")
                bindings.append(row.key)
                for (attribute, value) in zip(attributes, row.values) {
                    try Self.append(value, storage: attribute.storage, to: &bindings, naming: "\(entity).\(attribute.name)")
                }
            }
            try session.query("INSERT INTO \(table(entity)) (\(names)) VALUES \(tuples.joined(separator: ", "))", bindings)
            start += perStatement
        }
    }

    /// Sets a to-one relationship's foreign key of rows: `pairs` of (row key, target key).
    package func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of entity: String, column: String) throws {
        guard !pairs.isEmpty else { return }
        var bindings = PostgresBindings()
        bindings.append(pairs.map(\.row))
        bindings.append(pairs.map(\.target))
        try session.query("""
            UPDATE \(table(entity)) AS t SET \(PostgresSQL.quote(column)) = v.target
            FROM unnest($1::int8[], $2::int8[]) AS v(k, target) WHERE t.\(PostgresSQL.primaryKey) = v.k
            """, bindings)
    }

    /// Adds (owner, target) pairs to a link table; pairs it holds already stay as they are.
    package func addLinks(_ pairs: [(owner: Int64, target: Int64)], to linkTable: String) throws {
        guard !pairs.isEmpty else { return }
        var bindings = PostgresBindings()
        bindings.append(pairs.map(\.owner))
        bindings.append(pairs.map(\.target))
        try session.query("INSERT INTO \(table(linkTable)) (owner, target) SELECT * FROM unnest($1::int8[], $2::int8[]) ON CONFLICT DO NOTHING", bindings)
    }

    /// Records a history transaction of inserted rows (entity name, keys) and announces it, so
    /// that running apps see them as they see another process's save. Call inside
    /// ``transaction(_:)``.
    package func recordInsertions(_ keys: [(entity: String, keys: [Int64])], author: String) throws {
        var log = HistoryLog()
        for (entity, keys) in keys { for key in keys { log.insert(entityName: entity, key: key) } }
        guard !log.isEmpty else { return }
        guard metadata["historyToken"] != nil else {
            throw SwiftDataError(.storeFailure, reason: "\(displayName) was written by an older version of OpenSwiftData; open it once with the app's models, then import. Nothing was imported.")
        }
        let identity = HistoryLog.processIdentity
        var bindings = PostgresBindings()
        bindings.append(Date().timeIntervalSinceReferenceDate)
        bindings.append(author)
        bindings.append(identity.bundle)
        bindings.append(identity.process)
        bindings.append(Int64(0))
        bindings.append(ByteBuffer(bytes: try log.encoded()))
        let token = Int64.random(in: .min ... .max)
        bindings.append(token)
        try session.query(PostgresBackend.recordSQL(namespace: quotedNamespace, channel: "osd_" + namespace), bindings)
        recordedToken = token
    }

    /// Why PostgreSQL cannot hold a value, or `nil` when it can: its text cannot hold U+0000.
    package static func problem(storing value: StoredValue) -> String? {
        guard case .text(let text) = value, text.utf8.contains(0) else { return nil }
        return "\(PostgresTextError.containsNull)"
    }

    /// Appends a stored value as a parameter of a column of the given storage. A `Double` NaN,
    /// which the SQLite store's terms carry as its 8 bytes, becomes the `float8` NaN it is.
    private static func append(_ value: StoredValue, storage: StorageClass, to bindings: inout PostgresBindings, naming property: String) throws {
        switch value {
        case .null: bindings.appendNull()
        case .integer(let number): bindings.append(number)
        case .real(let number): bindings.append(number)
        case .text(let text):
            if let problem = problem(storing: value) { throw SwiftDataError(.storeFailure, reason: "\(property): \(problem)") }
            bindings.append(text)
        case .blob(let bytes):
            if (storage == .real || storage == .date) && bytes.count == 8 {
                let bits = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                bindings.append(Double(bitPattern: bits))
            } else {
                bindings.append(ByteBuffer(bytes: bytes))
            }
        }
    }
}

extension PostgresRowReader {
    /// A column's value in the SQLite store's terms: integers (and Booleans) `.integer`, floating
    /// point `.real`, text `.text`, bytes `.blob`, NULL `.null`.
    func storedValue(_ column: Int32) -> StoredValue {
        guard !_isNull(column) else { return .null }
        switch row[Int(column)].dataType {
        case .int8, .int4, .int2, .bool: return .integer(_int64(column))
        case .float8, .float4: return .real(_double(column))
        case .bytea: return .blob(_withBytes(column) { Array($0) })
        default: return .text(_string(column))
        }
    }
}
