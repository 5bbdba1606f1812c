import Foundation
import OpenSwiftData
import PostgresNIO

/// A save whose only change is one new model of an entity with one uniqueness constraint (an
/// upsert: "insert this trip, or update the trip with its code"), in one statement: the insert of
/// a new row or the update of the stored row with the same values, and the history record of
/// whichever happened. One round trip instead of two, with the same outcome as the
/// look-up and the write made one after the other (``write(_:on:)``). Such a save goes to the
/// server with the other one-statement saves waiting (``pendingSave(_:)``).
extension PostgresBackend {
    /// The statement that upserts one row of `table` and records it, or `nil` when the entity has
    /// no uniqueness constraint or more than one (a new model matching two rows is a conflict the
    /// statement could not tell).
    ///
    /// With `conflictTarget` (the unique index, ``PostgresTableDDL/uniqueConflictTarget``, when
    /// the namespace has it as the store creates it: ``upsertStatements(_:namespace:channel:on:)``)
    /// the row is written by `INSERT … ON CONFLICT … DO UPDATE`: PostgreSQL finds the stored row in
    /// the index as it inserts, in one step, and a row another connection inserts meanwhile is
    /// updated rather than reported. Without it, the stored row is looked up, locked, then updated,
    /// or the new row inserted; a row another connection inserts meanwhile makes the insert fail
    /// as a lost race, and the save runs again and updates it.
    ///
    /// Parameters: the key drawn for a new row, each stored property as ``PostgresTable/preparedInsertSQL``
    /// takes them, then the record's timestamp, author, bundle, process, origin, the changes of an
    /// insert, the token, and the changes of an update before and after the key
    /// (``HistoryLog/oneUpdate(entityName:mask:)``). Answers the history transaction's number, the
    /// row's key and 1 when the row is new. The row is locked as it is written, and the history
    /// counter last, as in every save.
    static func upsertRecordingStatement(for table: PostgresTable, namespace: String, channel: String, conflictTarget: String?) -> String? {
        guard table.uniqueConstraints.count == 1, let constraint = table.uniqueConstraints.first else { return nil }
        let stored = table.shape.storedProperties
        var parameterOf: [Int: String] = [:]
        for (offset, property) in stored.enumerated() {
            parameterOf[property] = "$\(offset + 2)::\(table.parameterType(of: property))"
        }
        guard constraint.allSatisfy({ parameterOf[$0] != nil }) else { return nil }
        let names = stored.compactMap { table.columns[$0] }
        guard names.count == stored.count else { return nil }
        let values = stored.compactMap { parameterOf[$0] }
        let key = PostgresSQL.primaryKey
        let written: String
        if let conflictTarget {
            // A new row is the one with the key drawn for it: no stored row has that key.
            written = """
                osd_written AS (
                    INSERT INTO \(table.table) (\(([key] + names).joined(separator: ", "))) VALUES ($1::int8, \(values.joined(separator: ", ")))
                    ON CONFLICT \(conflictTarget) DO UPDATE SET \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                    RETURNING \(key), (\(key) = $1::int8)::int4::int8 AS new
                )
                """
        } else {
            let match = PostgresTable.match(constraint, entity: table.entity, columns: table.columns) { parameterOf[$0] ?? "NULL" }
            let assignments = zip(names, values).map { "\($0) = \($1)" }.joined(separator: ", ")
            written = """
                osd_found AS (
                    SELECT \(key) FROM \(table.table) WHERE \(match) FOR UPDATE
                ), osd_updated AS (
                    UPDATE \(table.table) SET \(assignments) WHERE \(key) IN (SELECT \(key) FROM osd_found) RETURNING \(key)
                ), osd_inserted AS (
                    INSERT INTO \(table.table) (\(([key] + names).joined(separator: ", ")))
                    SELECT $1::int8, \(values.joined(separator: ", ")) WHERE NOT EXISTS (SELECT 1 FROM osd_found) RETURNING \(key)
                ), osd_written AS (
                    SELECT \(key), 0::int8 AS new FROM osd_updated UNION ALL SELECT \(key), 1::int8 FROM osd_inserted
                )
                """
        }
        let record = (stored.count + 2...stored.count + 10).map { "$\($0)" }
        let varint = varintSQL(of: "w.\(key)")
        return """
            WITH \(written), next AS (
                UPDATE \(namespace).osd_metadata SET value = (value::int8 + 1)::text
                WHERE key = 'historyNext' AND (SELECT count(*) FROM osd_written) >= 0 RETURNING value::int8 AS id
            ), osd_recorded AS (
                INSERT INTO \(namespace).osd_history (id, timestamp, author, bundle, process, origin, changes, token)
                SELECT next.id, \(record[0])::float8, \(record[1])::text, \(record[2])::text, \(record[3])::text, \(record[4])::int8,
                    CASE WHEN w.new = 1 THEN \(record[5])::bytea ELSE \(record[7])::bytea || \(varint) || \(record[8])::bytea END,
                    \(record[6])::int8
                FROM next, osd_written AS w
                RETURNING id
            )
            SELECT r.id, pg_notify(\(PostgresSQL.literal(channel)), ''), w.\(key), w.new FROM osd_recorded AS r, osd_written AS w
            """
    }

    /// The statement of each entity's one-model upserts (``upsertRecordingStatement(for:namespace:channel:conflictTarget:)``):
    /// by `INSERT … ON CONFLICT` for each entity whose unique index the namespace has as the store
    /// creates it, which PostgreSQL checks by planning the conflict (`EXPLAIN`, nothing is
    /// written); by a look-up otherwise (a namespace whose unique text index still tells Unicode
    /// forms apart, or whose index another program removed). Without `session`, every statement
    /// looks up.
    static func upsertStatements(_ tables: [String: PostgresTable], namespace: String, channel: String, on session: PostgresSession?) throws -> [String: String] {
        var statements: [String: String] = [:]
        for (name, table) in tables {
            var target: String?
            // The index the store creates for the one constraint the statement matches by.
            if let session, let conflict = table.ddl.uniqueConflictTarget,
               table.uniqueConstraints.first?.map({ table.entity.fields[$0].name }) == table.ddl.definition.uniquenessConstraints.first,
               try hasIndex(for: conflict, of: table, on: session) {
                target = conflict
            }
            statements[name] = upsertRecordingStatement(for: table, namespace: namespace, channel: channel, conflictTarget: target)
        }
        return statements
    }

    /// Whether PostgreSQL finds a unique index of `table` for `target`: it plans an insert with
    /// that conflict, and refuses (`invalid_column_reference`) when none matches. A role that may
    /// not insert into the table is refused too; its saves then look rows up, and fail as they
    /// did before, on the write itself.
    private static func hasIndex(for target: String, of table: PostgresTable, on session: PostgresSession) throws -> Bool {
        do {
            try session.execute("EXPLAIN INSERT INTO \(table.table) (\(PostgresSQL.primaryKey)) VALUES (NULL) ON CONFLICT \(target) DO NOTHING")
            return true
        } catch let error as SwiftDataError where PostgresFailure.isMissingConflictIndex(error) || error == .storeAccessDenied {
            return false
        }
    }

    /// The history record of an upsert that updates a row of `table` (every stored property),
    /// before and after the row's key, as the upsert statements' last two parameters: the same
    /// for every upsert of the table (``HistoryLog/oneUpdate(entityName:mask:)``).
    static func updateRecordArguments(for table: PostgresTable) -> [PostgresData] {
        let mask = table.shape.storedProperties.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
        let record = HistoryLog.oneUpdate(entityName: table.entity.name, mask: mask)
        return [PostgresData(type: .bytea, value: ByteBuffer(bytes: record.beforeKey)), PostgresData(type: .bytea, value: ByteBuffer(bytes: record.afterKey))]
    }

    /// SQL for the history record's varint of a key (`int8`): the zigzag form, seven bits a byte,
    /// low bits first, the high bit set on every byte but the last (PostgreSQL's bit operators
    /// share one precedence: all grouped).
    static func varintSQL(of key: String) -> String {
        let zigzag = "((\(key) << 1) # (\(key) >> 63))"
        return """
            (SELECT string_agg(set_byte('\\x00'::bytea, 0, (((\(zigzag) >> (7 * i)) & 127) | (CASE WHEN (\(zigzag) >> (7 * i + 7)) > 0 THEN 128 ELSE 0 END))::int4), ''::bytea ORDER BY i) \
            FROM generate_series(0, 8) AS i WHERE i = 0 OR (\(zigzag) >> (7 * i)) > 0)
            """
    }

    /// The row a one-statement upsert wrote, and whether it was new, from its history record: for
    /// a save whose reply was lost after the server kept it.
    func upsertedRow(recordedBy transaction: Int64, entityName: String) throws -> (key: Int64, isNew: Bool) {
        var bindings = PostgresBindings()
        bindings.append(transaction)
        let rows = try session.query("SELECT changes FROM \(namespace).osd_history WHERE id = $1", bindings)
        let changes = rows.first.flatMap { row in PostgresRowReader(row)._withBytes(0) { HistoryLog.decode($0) } }
        guard let change = changes?.first, change.entityName == entityName, change.kind != .delete else {
            throw SwiftDataError(.storeFailure, reason: "The server kept a save of a new \(entityName) whose reply was lost, but its history transaction \(transaction) does not say which row it wrote. Fetch the model rather than insert it again.")
        }
        return (change.key, change.kind == .insert)
    }
}
