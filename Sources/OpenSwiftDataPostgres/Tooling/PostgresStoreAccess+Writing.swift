import Foundation
import OpenSwiftData
import PostgresNIO

/// Writing rows into a PostgreSQL store without its model classes, in one transaction: keys drawn
/// or reserved in the key sequences, rows a thousand to a statement, relationships in one
/// statement each, and the history record that announces the rows to running apps.
extension PostgresStoreAccess {
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
    func keySequence(root: String) -> String { table("osd_keys_\(root)") }

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
        guard case .text(let text) = value, !PostgresSQL.canHold(text) else { return nil }
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
