import Foundation
import Testing
@testable import OpenSwiftData

/// A connection keeps the statements it prepared for reuse, within bounds: texts that never come
/// back (an `IN` list per length, predicates built at run time) must not grow a long-running
/// process without end.
@Suite struct StatementCacheTests {
    private static func connection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false, create: true)
        try connection.execute("CREATE TABLE t (a INTEGER)")
        return connection
    }

    private static func inList(_ count: Int) -> String {
        "SELECT a FROM t WHERE a IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
    }

    @Test func aConnectionKeepsAtMostItsCapacityAndDropsTheLeastRecentlyUsed() throws {
        let connection = try Self.connection()
        let first = try connection.statement("SELECT a FROM t WHERE a = 0")
        var cache = StatementCache()
        for number in 1...(StatementCache.capacity + 50) {
            // The first statement stays in use all along; the others are used once.
            cache.keep(try connection.uncachedStatement("SELECT a FROM t WHERE a = \(number)"), for: CachedSQL("SELECT a FROM t WHERE a = \(number)"))
            if number == 1 { cache.keep(first, for: CachedSQL(first.sql)) }
            #expect(cache.statement(for: CachedSQL(first.sql)) === first)
        }
        #expect(cache.count == StatementCache.capacity)
        #expect(cache.statement(for: CachedSQL("SELECT a FROM t WHERE a = 1")) == nil, "the least recently used went first")
        #expect(cache.statement(for: CachedSQL("SELECT a FROM t WHERE a = \(StatementCache.capacity + 50)")) != nil)
    }

    @Test func aStatementTheCacheDroppedStillRunsForItsHolder() throws {
        let connection = try Self.connection()
        try connection.execute("INSERT INTO t VALUES (1), (2), (3)")
        let held = try connection.statement(Self.inList(2))
        for count in 3..<(StatementCache.capacity + 10) { _ = try connection.statement(Self.inList(count)) }
        #expect(try connection.statement(Self.inList(2)) !== held, "dropped from the cache")
        try held.bind([.integer(1), .integer(3)])
        var values: [Int64] = []
        while try held.step() { values.append(held._int64(0)) }
        #expect(values == [1, 3])
    }

    @Test func aLargeStatementIsNotKept() throws {
        let connection = try Self.connection()
        let sql = Self.inList(5_000)
        let large = try connection.statement(sql)
        #expect(large.memoryUsed > StatementCache.largestKept)
        #expect(try connection.statement(sql) !== large, "prepared again for each use")
        let small = try connection.statement(Self.inList(3))
        #expect(try connection.statement(Self.inList(3)) === small, "kept")
    }

    @Test func fetchesByListsOfEveryLengthLeaveMemoryBounded() throws {
        // In a process of its own: 900 fetches and counts after a warm-up of 100, each list one
        // value longer (1,800 after 200 at full counts). Kept, their statements held about 150
        // bytes per placeholder: over 100 MB here (400 MB at full counts). Bounded, each of the
        // store's connections (a writer and at most 8 readers) keeps at most 4 MiB of statements.
        if let growth = try residentGrowth(ofProbe: "lists", rounds: TestCounts.count(quick: 1_000, full: 2_000)),
           !isRunningUnderThreadSanitizer {
            #expect(growth < 48 << 20, "\(growth / 1024) KiB more")
        }
    }
}
