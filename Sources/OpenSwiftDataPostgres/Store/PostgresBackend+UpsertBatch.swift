import Foundation
import OpenSwiftData
import PostgresNIO

/// Upserts of one entity that wait together, made by one statement: their rows go to the server as
/// arrays, one per column, and the statement finds the stored rows with the same unique values,
/// updates them or inserts the new rows, and records one history transaction per save, numbered
/// in the order the saves came. One exchange with the server instead of one per save.
///
/// The statement is one transaction: if any row fails (a value the server refuses, two saves of
/// the same unique values, a lost race with another connection), none is written, and the saves
/// go again one statement each (``PostgresBackend/sendWaitingSaves(on:)``), where each succeeds or
/// fails alone.
extension PostgresBackend {
    /// The most upserts one statement makes; more of one entity waiting go as several statements.
    static let largestUpsertBatch = 32

    /// The statement that upserts `count` rows of `table` given as arrays, or `nil` when the
    /// entity has no uniqueness constraint or more than one.
    ///
    /// Parameters, each an array with one element per save, in order: the keys drawn for new
    /// rows, each stored property as ``PostgresTable/preparedInsertSQL`` takes them, the records'
    /// timestamps, authors, origins, the changes of an insert and the tokens; then the bundle,
    /// the process and the changes of an update before and after the key
    /// (``HistoryLog/oneUpdate(entityName:mask:)``). Answers, per save in order, the history
    /// transaction's number, the announcement, the row's key, 1 when the row is new, and the save's
    /// position (from 1).
    ///
    /// The number of rows is written in the statement, and the arrays' rows are limited to one
    /// more than it (a statement that reads more rows than that number writes nothing). The
    /// planner then prices the statement's generic plan for that many rows, as it prices a plan
    /// made for the arrays it is given, and keeps the generic plan: otherwise it would plan every
    /// execution anew, pricing the arrays of a generic plan at 10 rows, which costs more than any
    /// batch the server makes.
    static func upsertBatchStatement(for table: PostgresTable, namespace: String, channel: String, rows count: Int) -> String? {
        guard table.uniqueConstraints.count == 1, let constraint = table.uniqueConstraints.first else { return nil }
        let stored = table.shape.storedProperties
        let entity = table.entity
        let names = stored.compactMap { table.columns[$0] }
        guard names.count == stored.count else { return nil }
        var inputOf: [Int: String] = [:]
        var arrays = ["$1::int8[]"]
        for (offset, property) in stored.enumerated() {
            inputOf[property] = "r.osd_p\(offset)"
            arrays.append("$\(offset + 2)::\(table.parameterType(of: property))[]")
        }
        guard constraint.allSatisfy({ inputOf[$0] != nil }) else { return nil }
        let next = stored.count + 2
        arrays += ["$\(next)::float8[]", "$\(next + 1)::text[]", "$\(next + 2)::int8[]", "$\(next + 3)::bytea[]", "$\(next + 4)::int8[]"]
        let (bundle, process, before, after) = ("$\(next + 5)::text", "$\(next + 6)::text", "$\(next + 7)::bytea", "$\(next + 8)::bytea")
        let inputColumns = ["osd_k"] + stored.indices.map { "osd_p\($0)" } + ["osd_ts", "osd_au", "osd_og", "osd_ch", "osd_tk", "osd_ord"]
        let qualified = table.columns.map { $0.map { "t.\($0)" } }
        let match = PostgresTable.match(constraint, entity: entity, columns: qualified) { inputOf[$0] ?? "NULL" }
        let key = PostgresSQL.primaryKey
        let values = stored.indices.map { "r.osd_p\($0)" }
        let assignments = zip(names, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        return """
            WITH osd_input AS (
                SELECT * FROM unnest(\(arrays.joined(separator: ", "))) WITH ORDINALITY AS r(\(inputColumns.joined(separator: ", "))) LIMIT \(count + 1)
            ), osd_found AS (
                SELECT r.osd_ord, t.\(key) FROM osd_input AS r JOIN \(table.table) AS t ON \(match) FOR UPDATE OF t
            ), osd_updated AS (
                UPDATE \(table.table) AS t SET \(assignments) FROM osd_found AS f JOIN osd_input AS r ON r.osd_ord = f.osd_ord
                WHERE t.\(key) = f.\(key) RETURNING f.osd_ord, t.\(key)
            ), osd_inserted AS (
                INSERT INTO \(table.table) (\(([key] + names).joined(separator: ", ")))
                SELECT r.osd_k, \(values.joined(separator: ", ")) FROM osd_input AS r
                WHERE NOT EXISTS (SELECT 1 FROM osd_found AS f WHERE f.osd_ord = r.osd_ord) ORDER BY r.osd_ord RETURNING \(key)
            ), osd_written AS (
                SELECT osd_ord, \(key), 0::int8 AS new FROM osd_updated
                UNION ALL SELECT r.osd_ord, n.\(key), 1::int8 FROM osd_inserted AS n JOIN osd_input AS r ON r.osd_k = n.\(key)
            ), osd_checked AS (
                SELECT count(*) / (CASE WHEN count(*) = \(count) AND count(DISTINCT osd_ord) = \(count) THEN 1 ELSE 0 END) AS n FROM osd_written
            ), next AS (
                UPDATE \(namespace).osd_metadata SET value = (value::int8 + (SELECT n FROM osd_checked))::text
                WHERE key = 'historyNext' RETURNING value::int8 AS last
            ), osd_recorded AS (
                INSERT INTO \(namespace).osd_history (id, timestamp, author, bundle, process, origin, changes, token)
                SELECT next.last - \(count) + w.osd_ord, r.osd_ts, r.osd_au, \(bundle), \(process), r.osd_og,
                    CASE WHEN w.new = 1 THEN r.osd_ch ELSE \(before) || \(varintSQL(of: "w.\(key)")) || \(after) END, r.osd_tk
                FROM next, osd_written AS w JOIN osd_input AS r ON r.osd_ord = w.osd_ord
                RETURNING id
            )
            SELECT next.last - \(count) + w.osd_ord, (SELECT pg_notify(\(PostgresSQL.literal(channel)), '')), w.\(key), w.new, w.osd_ord
            FROM next, osd_written AS w WHERE (SELECT count(*) FROM osd_recorded) = \(count) ORDER BY w.osd_ord
            """
    }

    /// The batch statement's arguments for `upserts`, each made for its key
    /// (``PendingSave/statement(key:)``); `nil` when an argument is not of its column's type.
    static func upsertBatchArguments(_ upserts: [PendingSave], table: PostgresTable) -> [PostgresData]? {
        let stored = table.shape.storedProperties
        let elementTypes: [PostgresDataType] = [.int8] + stored.map { table.entity.fields[$0].storage.map(PostgresSQL.parameterDataType) ?? .text }
        // The record's columns after the stored ones (``PostgresBackend/recordArguments``):
        // timestamp, author, origin, changes, token; bundle and process are the same for all.
        let record = stored.count + 1
        let perSave: [(position: Int, type: PostgresDataType)] =
            elementTypes.enumerated().map { ($0.offset, $0.element) }
            + [(record, .float8), (record + 1, .text), (record + 4, .int8), (record + 5, .bytea), (record + 6, .int8)]
        var arguments: [PostgresData] = []
        arguments.reserveCapacity(perSave.count + 4)
        for (position, type) in perSave {
            var elements: [PostgresData?] = []
            elements.reserveCapacity(upserts.count)
            for upsert in upserts {
                let argument = upsert.arguments[position]
                guard argument.value == nil || argument.type == type else { return nil }
                elements.append(argument.value == nil ? nil : argument)
            }
            arguments.append(PostgresData(array: elements, elementType: type))
        }
        guard let first = upserts.first else { return nil }
        arguments += [
            first.arguments[record + 2], first.arguments[record + 3], first.arguments[record + 7], first.arguments[record + 8],
        ]
        return arguments
    }
}
