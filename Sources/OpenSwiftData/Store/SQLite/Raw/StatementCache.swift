import CSQLite

/// A connection's prepared statements, kept by their SQL text for reuse, within bounds.
///
/// Statements built from a fetch's shape repeat (the same predicate with new values binds new
/// parameters), but some texts never come back: an `IN` list with one placeholder per value, or a
/// predicate built at run time. Kept forever, those grew a connection by about 150 bytes per
/// placeholder each time: 4,000 fetches by lists of up to 2,000 values held 600 MB. So the cache
/// keeps at most ``capacity`` statements and ``byteBudget`` bytes of them (SQLite's own measure of a
/// prepared statement), drops the least recently used to make room, and never keeps a statement
/// larger than ``largestKept``. A dropped statement that a caller still holds stays valid until
/// that caller lets it go.
struct StatementCache {
    /// The most statements kept.
    static let capacity = 256
    /// The most bytes of prepared statements kept.
    static let byteBudget = 4 << 20
    /// Statements larger than this are prepared for each use and not kept.
    static let largestKept = 256 << 10

    private var entries: [CachedSQL: SQLiteStatement] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0

    /// The number of statements kept.
    var count: Int { entries.count }

    /// The statement kept for `key`, marked as just used.
    mutating func statement(for key: CachedSQL) -> SQLiteStatement? {
        guard let statement = entries[key] else { return nil }
        clock &+= 1
        statement.lastUse = clock
        return statement
    }

    /// Keeps `statement` for `key` unless it is too large, dropping the least recently used ones
    /// as needed to stay within the bounds.
    mutating func keep(_ statement: SQLiteStatement, for key: CachedSQL) {
        let size = statement.memoryUsed
        guard size <= Self.largestKept else { return }
        while !entries.isEmpty, entries.count >= Self.capacity || bytes + size > Self.byteBudget {
            dropLeastRecentlyUsed()
        }
        clock &+= 1
        statement.lastUse = clock
        statement.cachedBytes = size
        entries[key] = statement
        bytes += size
    }

    /// Forgets every statement.
    mutating func removeAll() {
        entries.removeAll()
        bytes = 0
    }

    private mutating func dropLeastRecentlyUsed() {
        guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
        entries.removeValue(forKey: oldest.key)
        bytes -= oldest.value.cachedBytes
    }
}
