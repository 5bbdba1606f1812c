import Foundation
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
import PostgresNIO
import Testing

/// A listing with indexed properties of the kinds whose comparisons need Swift's semantics:
/// optional text (`nil` compared as Swift's `==` does), text (compared by its NFC form),
/// floating point (NaN unordered) and dates.
@Model final class Listing {
    #Index<Listing>([\.category], [\.title], [\.price], [\.listed])
    var category: String?
    var title: String
    var price: Double
    var listed: Date

    init(category: String?, title: String, price: Double, listed: Date) {
        self.category = category
        self.title = title
        self.price = price
        self.listed = listed
    }
}

/// PostgreSQL's plans for the statements fetches run: comparisons of an indexed property with a
/// value use the index, whatever Swift semantics they carry.
@Suite struct PostgresIndexUseTests {
    /// The statement's clauses, then PostgreSQL's plan for it (with `suffix`, such as a limit).
    private func plan(_ descriptor: FetchDescriptor<Listing>, in container: ModelContainer, suffix: String = "") throws -> String {
        let entity = try #require(container.schema.entity(for: Listing.self))
        let backend = try #require(container.store(for: entity) as? PostgresBackend)
        let plan = PredicateTranslator.plan(for: descriptor, entity: entity, schema: container.schema)
        #expect(plan.isExact)
        let table = try backend.table(for: entity.name)
        let (clauses, compiler) = try backend.clauses(StoreFetch(entity: entity, filter: plan.filter, sort: plan.sort), table: table, ordered: true)
        return try backend.withSession { session in
            [clauses] + (try session.query("EXPLAIN " + table.selectPrefix + clauses + suffix, compiler.bindings).map { PostgresRowReader($0)._string(0) })
        }.joined(separator: "\n")
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func comparisonsWithAValueUseTheIndex() throws {
        let configuration = try PostgresServer.freshConfiguration("plans")
        let container = try ModelContainer(for: Listing.self, configurations: configuration)
        let context = ModelContext(container)
        for number in 0..<5_000 {
            context.insert(Listing(
                category: number % 97 == 0 ? nil : "category \(number % 500)", title: "title \(number)",
                price: number % 11 == 0 ? .nan : Double(number), listed: Date(timeIntervalSinceReferenceDate: Double(number) * 3_600)))
        }
        try context.save()
        try PostgresServer.sql("ANALYZE \(configuration.name).\"Listing\"")

        let category = "category 42"
        let byCategory = try plan(FetchDescriptor(predicate: #Predicate { $0.category == category }), in: container)
        #expect(byCategory.contains("osd_index_Listing_0"), "\(byCategory)")
        let uncategorized = try plan(FetchDescriptor(predicate: #Predicate { $0.category == nil }), in: container)
        #expect(uncategorized.contains("osd_index_Listing_0"), "\(uncategorized)")
        let title = "title 4711"
        let byTitle = try plan(FetchDescriptor(predicate: #Predicate { $0.title == title }), in: container)
        #expect(byTitle.contains("osd_index_Listing_1"), "\(byTitle)")
        let byPrice = try plan(FetchDescriptor(predicate: #Predicate { $0.price > 100 && $0.price < 120 }), in: container)
        #expect(byPrice.contains("osd_index_Listing_2"), "\(byPrice)")
        let start = Date(timeIntervalSinceReferenceDate: 360_000), end = Date(timeIntervalSinceReferenceDate: 400_000)
        let byDate = try plan(FetchDescriptor(predicate: #Predicate { $0.listed >= start && $0.listed < end }), in: container)
        #expect(byDate.contains("osd_index_Listing_3"), "\(byDate)")

        // The answers are Swift's: NaN is neither above 100 nor below 120, nil equals nil only.
        #expect(try context.fetchCount(FetchDescriptor(predicate: #Predicate<Listing> { $0.price > 100 && $0.price < 120 })) == 18)
        #expect(try context.fetchCount(FetchDescriptor(predicate: #Predicate<Listing> { $0.category == nil })) == 52)
        #expect(try context.fetchCount(FetchDescriptor(predicate: #Predicate<Listing> { $0.category == category })) == 10)
    }

    /// A sort by an indexed property that cannot be `nil`, either way, with a limit: PostgreSQL
    /// reads the index (backwards for a descending sort) rather than sorting every row, and the
    /// models come in Swift's order.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aSortByAnIndexedPropertyReadsTheIndex() throws {
        let configuration = try PostgresServer.freshConfiguration("plans")
        let container = try ModelContainer(for: Listing.self, configurations: configuration)
        let context = ModelContext(container)
        for number in 0..<5_000 {
            // Many equal dates, so that the primary key breaks ties.
            context.insert(Listing(category: nil, title: "title \(number)", price: Double(number), listed: Date(timeIntervalSinceReferenceDate: Double(number % 400) * 3_600)))
        }
        try context.save()
        try PostgresServer.sql("ANALYZE \(configuration.name).\"Listing\"")

        for order in [SortOrder.reverse, .forward] {
            let descriptor = FetchDescriptor<Listing>(sortBy: [SortDescriptor(\.listed, order: order)])
            let sorted = try plan(descriptor, in: container, suffix: " LIMIT 25")
            #expect(sorted.contains("osd_index_Listing_3") && !sorted.contains("Seq Scan"), "\(sorted)")

            var limited = descriptor
            limited.fetchLimit = 25
            let fetched = try context.fetch(limited).map(\.title)
            let all = try context.fetch(FetchDescriptor<Listing>())
            let expected = all.sorted { order == .forward ? $0.listed < $1.listed : $0.listed > $1.listed }
            let fetchedDates = try context.fetch(limited).map(\.listed)
            #expect(fetchedDates == Array(expected.prefix(25).map(\.listed)), "the first 25 in Swift's order")
            #expect(Set(fetched).count == 25)
            // Ties come in the same order every time (the primary key breaks them).
            #expect(try context.fetch(limited).map(\.title) == fetched)
        }
    }
}
