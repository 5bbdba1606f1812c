import Foundation

/// The statements that upsert several rows of an entity at once
/// (``PostgresBackend/upsertBatchStatement(for:namespace:channel:rows:)``), one per number of rows,
/// each made the first time a batch of that many rows goes to the server.
final class UpsertBatchStatements: @unchecked Sendable {
    // @unchecked Sendable: `made` is used only while `lock` is held; the rest is immutable.
    private let lock = NSLock()
    private var made: [String: [Int: String]] = [:]
    private let tables: [String: PostgresTable]
    private let namespace: String
    private let channel: String
    /// The entities whose upserts go in batches: those with one uniqueness constraint.
    let entities: Set<String>

    init(tables: [String: PostgresTable], namespace: String, channel: String) {
        self.tables = tables
        self.namespace = namespace
        self.channel = channel
        // An entity has batch statements when it has the one for two rows, kept for its first batch.
        for (name, table) in tables {
            if let statement = PostgresBackend.upsertBatchStatement(for: table, namespace: namespace, channel: channel, rows: 2) {
                made[name] = [2: statement]
            }
        }
        self.entities = Set(made.keys)
    }

    /// The statement for `rows` upserts of `entity` (2 through
    /// ``PostgresBackend/largestUpsertBatch``), or `nil` for another number or entity.
    func sql(for entity: String, rows: Int) -> String? {
        guard entities.contains(entity), (2...PostgresBackend.largestUpsertBatch).contains(rows), let table = tables[entity] else { return nil }
        return lock.withLock {
            if let statement = made[entity]?[rows] { return statement }
            let statement = PostgresBackend.upsertBatchStatement(for: table, namespace: namespace, channel: channel, rows: rows)
            made[entity, default: [:]][rows] = statement
            return statement
        }
    }
}
