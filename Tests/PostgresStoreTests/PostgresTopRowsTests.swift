import Foundation
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
import Testing

/// A ranked entry with one indexed property of each kind a sort compares differently: integers,
/// floating point (NaN, -0 and 0), text (compared by its NFC form) and dates; and one property
/// without an index.
@Model final class RankedEntry {
    #Index<RankedEntry>([\.rank], [\.score], [\.label], [\.day])
    var rank: Int
    var score: Double
    var label: String
    var day: Date
    var plain: Int

    init(rank: Int, score: Double, label: String, day: Date, plain: Int) {
        self.rank = rank
        self.score = score
        self.label = label
        self.day = day
        self.plain = plain
    }
}

/// The first rows by an indexed property that many rows share: a page of them is the same page
/// of the whole sorted result, ties in key order (descending after a reverse key), on random data,
/// for every kind of property, either order, with and without a filter and an offset; and the
/// statement reads them from the index (which ends with the key), in either order.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresTopRowsTests {
    private static let labels = ["b", "a", "é", "e\u{301}", "", "Z", "ab"]

    private static func insertEntries(_ count: Int, into context: ModelContext, using random: inout some RandomNumberGenerator) {
        let scores: [Double] = [.nan, -0.0, 0.0, 1.5, -2, .infinity, 7]
        for _ in 0..<count {
            context.insert(RankedEntry(
                rank: Int.random(in: -3...6, using: &random), score: scores.randomElement(using: &random)!,
                label: labels.randomElement(using: &random)!,
                day: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...4, using: &random)) * 86_400),
                plain: Int.random(in: 0...5, using: &random)))
        }
    }

    private static func sortDescriptor(_ number: Int, order: SortOrder) -> SortDescriptor<RankedEntry> {
        switch number {
        case 0: SortDescriptor(\.rank, order: order)
        case 1: SortDescriptor(\.score, order: order)
        case 2: SortDescriptor(\.label, order: order)
        case 3: SortDescriptor(\.day, order: order)
        default: SortDescriptor(\.plain, order: order)
        }
    }

    /// A fresh store of `count` entries, the n-th of rank n % `ranks` with `plain` n, saved at
    /// once or one save each.
    private static func rankedStore(_ count: Int, ranks: Int, savedOneByOne: Bool = false) throws -> (ModelContainer, PostgresStoreConfiguration) {
        let configuration = try PostgresServer.freshConfiguration("toprows")
        let container = try ModelContainer(for: RankedEntry.self, configurations: configuration)
        let writer = ModelContext(container)
        for number in 0..<count {
            writer.insert(RankedEntry(rank: number % ranks, score: 0, label: "", day: .distantPast, plain: number))
            if savedOneByOne { try writer.save() }
        }
        try writer.save()
        return (container, configuration)
    }

    @Test func aPageIsThatPageOfTheWholeSortedResult() throws {
        let configuration = try PostgresServer.freshConfiguration("toprows")
        let container = try ModelContainer(for: RankedEntry.self, configurations: configuration)
        var random = SystemRandomNumberGenerator()
        let writer = ModelContext(container)
        Self.insertEntries(600, into: writer, using: &random)
        try writer.save()
        // A second save, so that keys and values are not in the same order.
        Self.insertEntries(300, into: writer, using: &random)
        try writer.save()

        for trial in 0..<120 {
            let order: SortOrder = Bool.random(using: &random) ? .forward : .reverse
            let sort = Self.sortDescriptor(Int.random(in: 0...4, using: &random), order: order)
            let minimum = Int.random(in: -4...7, using: &random)
            let label = Self.labels.randomElement(using: &random)!
            var predicate: Predicate<RankedEntry>?
            switch trial % 3 {
            case 0: predicate = nil
            case 1: predicate = #Predicate { $0.rank >= minimum }
            default: predicate = #Predicate { $0.label != label && $0.plain != 3 }
            }
            var descriptor = FetchDescriptor(predicate: predicate, sortBy: [sort])
            let whole = try ModelContext(container).fetch(descriptor).map(\.persistentModelID)
            descriptor.fetchLimit = [1, 2, 10, 50, 200, 1_000].randomElement(using: &random)!
            descriptor.fetchOffset = [nil, 0, 1, 7, 120, 900].randomElement(using: &random)!
            let page = try ModelContext(container).fetch(descriptor).map(\.persistentModelID)
            let start = min(descriptor.fetchOffset ?? 0, whole.count)
            let expected = Array(whole[start...].prefix(descriptor.fetchLimit!))
            #expect(page == expected, "trial \(trial): \(sort), limit \(descriptor.fetchLimit!), offset \(String(describing: descriptor.fetchOffset))")
        }
    }

    /// The whole result sorted by the store is Swift's order of the values, ties in the order
    /// models were saved, or in the reverse of it in a reverse sort; the page of the first rows
    /// agrees, and a reverse sort is the forward one reversed.
    @Test func tiesComeInTheOrderModelsWereSavedOrItsReverse() throws {
        let (container, _) = try Self.rankedStore(300, ranks: 3, savedOneByOne: true)
        for order in [SortOrder.forward, .reverse] {
            var descriptor = FetchDescriptor<RankedEntry>(sortBy: [SortDescriptor(\.rank, order: order)])
            descriptor.fetchLimit = 40
            descriptor.fetchOffset = 90
            let page = try ModelContext(container).fetch(descriptor).map { [$0.rank, $0.plain] }
            let forward = [0, 1, 2].flatMap { rank in (0..<300).filter { $0 % 3 == rank }.map { [rank, $0] } }
            let expected = order == .forward ? forward : forward.reversed()
            #expect(page == Array(expected[90..<130]))
        }
        let forward = try ModelContext(container).fetch(FetchDescriptor<RankedEntry>(sortBy: [SortDescriptor(\.rank)]))
        let reverse = try ModelContext(container).fetch(FetchDescriptor<RankedEntry>(sortBy: [SortDescriptor(\.rank, order: .reverse)]))
        #expect(reverse.map(\.plain) == forward.map(\.plain).reversed())
    }

    /// The statement reads the index, and only the rows it returns from the rank that 4,000
    /// share, in either order, filtered by the sorted property or by another one too, once
    /// PostgreSQL has statistics of the table (autovacuum gathers them soon after a large change).
    /// Before, its plans guess the size of a rank; the answers are the same.
    @Test func theFirstRowsOfALargeTieAreReadFromTheIndex() throws {
        let (container, configuration) = try Self.rankedStore(20_000, ranks: 5)

        var byRank = FetchDescriptor<RankedEntry>(predicate: #Predicate { $0.rank >= 1 }, sortBy: [SortDescriptor(\.rank, order: .reverse)])
        byRank.fetchLimit = 50
        var byBoth = FetchDescriptor<RankedEntry>(predicate: #Predicate { $0.plain < 19_900 && $0.rank >= 1 }, sortBy: [SortDescriptor(\.rank, order: .reverse)])
        byBoth.fetchLimit = 50
        var upwards = FetchDescriptor<RankedEntry>(predicate: #Predicate { $0.rank <= 3 && $0.plain >= 100 }, sortBy: [SortDescriptor(\.rank)])
        upwards.fetchLimit = 50
        for analyzed in [false, true] {
            if analyzed {
                try PostgresServer.sql("ANALYZE \(configuration.name).\"RankedEntry\"")
                try expectFewBuffers(byRank, in: container)
                try expectFewBuffers(byBoth, in: container)
                try expectFewBuffers(upwards, in: container)
            }
            #expect(try ModelContext(container).fetch(byRank).map(\.plain) == Array(stride(from: 19_999, to: 19_749, by: -5)))
            #expect(try ModelContext(container).fetch(byBoth).map(\.plain) == Array(stride(from: 19_899, to: 19_649, by: -5)))
            #expect(try ModelContext(container).fetch(upwards).map(\.plain) == Array(stride(from: 100, to: 350, by: 5)))
        }
    }

    /// Expects the statement of `descriptor` to read the index and a few dozen pages: the page's
    /// 50 rows and a few index pages, not the table (about 190 pages).
    private func expectFewBuffers(_ descriptor: FetchDescriptor<RankedEntry>, in container: ModelContainer) throws {
        let entity = try #require(container.schema.entity(for: RankedEntry.self))
        let backend = try #require(container.store(for: entity) as? PostgresBackend)
        let table = try backend.table(for: entity.name)
        let plan = PredicateTranslator.plan(for: descriptor, entity: entity, schema: container.schema)
        let fetch = StoreFetch(entity: entity, filter: plan.filter, sort: plan.sort, limit: descriptor.fetchLimit)
        let (clauses, compiler) = try backend.clauses(fetch, table: table, ordered: true)
        let sql = "SELECT \(table.selectList) FROM \(table.table) AS t0" + clauses
        let explained = try backend.withSession { session in
            try session.query("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, compiler.bindings).map { PostgresRowReader($0)._string(0) }
        }.joined()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(explained.utf8)) as? [[String: Any]])
        let root = try #require(json.first?["Plan"] as? [String: Any])
        let buffers = try #require(root["Shared Hit Blocks"] as? Int) + (root["Shared Read Blocks"] as? Int ?? 0)
        #expect(explained.contains("osd_index_RankedEntry_0"), "\(explained)")
        #expect(buffers < 100, "\(buffers) buffers: \(explained)")
    }

    /// A namespace whose regular indexes end without the key has them made again when it is
    /// next opened for saving; the rows are kept.
    @Test func olderIndexesAreMadeAgainWithTheKey() throws {
        let configuration = try PostgresServer.freshConfiguration("toprows")
        do {
            let container = try ModelContainer(for: RankedEntry.self, configurations: configuration)
            let context = ModelContext(container)
            for number in 0..<20 { context.insert(RankedEntry(rank: number % 4, score: 0, label: "l", day: .distantPast, plain: number)) }
            try context.save()
        }
        let schema = configuration.name
        try PostgresServer.sql("DROP INDEX \(schema).\"osd_index_RankedEntry_0\"")
        try PostgresServer.sql("CREATE INDEX \"osd_index_RankedEntry_0\" ON \(schema).\"RankedEntry\" (rank)")
        try PostgresServer.sql("DELETE FROM \(schema).osd_metadata WHERE key = 'indexTies'")
        let definitions = "SELECT indexdef FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname LIKE 'osd_index_%' ORDER BY indexname"
        #expect(try PostgresServer.sql(definitions).filter { $0.hasSuffix(", _pk)") }.count == 3)

        let container = try ModelContainer(for: RankedEntry.self, configurations: configuration)
        let indexes = try PostgresServer.sql(definitions)
        #expect(indexes.count == 4 && indexes.allSatisfy { $0.hasSuffix(", _pk)") }, "\(indexes)")
        var descriptor = FetchDescriptor<RankedEntry>(sortBy: [SortDescriptor(\.rank, order: .reverse)])
        descriptor.fetchLimit = 6
        #expect(try ModelContext(container).fetch(descriptor).map(\.plain) == [19, 15, 11, 7, 3, 18])
    }
}
