import OpenSwiftData
import PostgresNIO

/// A PostgreSQL store's ``CompanionRecord``s, as the tools read and write them: the table
/// `osd_companion` of the store's namespace, made on the first write.
extension PostgresStoreAccess {
    package func companionRecords(domain: String, keys: [String]) throws -> [String: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        var bindings = PostgresBindings()
        bindings.append(namespace)
        guard try integers("SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'osd_companion'", bindings).first == 1 else { return [:] }
        var query = PostgresBindings()
        query.append(domain)
        query.append(keys)
        var found: [String: [UInt8]] = [:]
        for row in try session.query("SELECT key, value FROM \(table("osd_companion")) WHERE domain = $1 AND key = ANY($2::text[])", query) {
            let reader = PostgresRowReader(row)
            found[reader._string(0)] = reader._withBytes(1) { Array($0) }
        }
        return found
    }

    package func writeCompanionRecords(_ records: [CompanionRecord]) throws {
        guard !records.isEmpty else { return }
        try session.query("CREATE TABLE IF NOT EXISTS \(table("osd_companion")) (domain text NOT NULL, key text NOT NULL, value bytea NOT NULL, PRIMARY KEY (domain, key))")
        let written = records.filter { $0.value != nil }, removed = records.filter { $0.value == nil }
        // A thousand records to a statement: three arrays unnested.
        for start in stride(from: 0, to: written.count, by: 1000) {
            let batch = written[start ..< min(start + 1000, written.count)]
            var bindings = PostgresBindings()
            bindings.append(batch.map(\.domain))
            bindings.append(batch.map(\.key))
            bindings.append(batch.map { ByteBuffer(bytes: $0.value ?? []) })
            try session.query("""
                INSERT INTO \(table("osd_companion")) (domain, key, value) SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[]) \
                ON CONFLICT (domain, key) DO UPDATE SET value = excluded.value
                """, bindings)
        }
        for record in removed {
            var bindings = PostgresBindings()
            bindings.append(record.domain)
            bindings.append(record.key)
            try session.query("DELETE FROM \(table("osd_companion")) WHERE domain = $1 AND key = $2", bindings)
        }
    }
}
