import Foundation
import Testing
@testable import OpenSwiftData

/// Every predicate form returns exactly the models for which `predicate.evaluate` is true, through
/// every fetch API, on a reopened store of seeded rows (on SQLite 200, 1,000 with
/// `OSD_TEST_COUNTS=full`).
@Suite struct PredicateDifferentialTests {
    /// Evaluates a predicate the way Swift does, treating a force-unwrapped nil as no match.
    private static func evaluate(_ predicate: Predicate<Item>, _ item: Item) -> Bool {
        (try? predicate.evaluate(item)) ?? false
    }

    /// How many rows a test seeds: `sqlite` on SQLite, `other` elsewhere (a custom store is read
    /// whole by every fetch, and each PostgreSQL fetch is a round trip: fewer rows keep them short).
    private static func rows(_ backend: Backend, sqlite: (quick: Int, full: Int), other: (quick: Int, full: Int)) -> Int {
        let counts = backend == .sqlite ? sqlite : other
        return TestCounts.count(quick: counts.quick, full: counts.full)
    }

    @Test(arguments: Backend.allCases) func storeResultsEqualSwiftEvaluation(_ backend: Backend) throws {
        let store = TemporaryStore()
        let originals = PredicateCorpus.items(count: Self.rows(backend, sqlite: (200, 1_000), other: (100, 300)), seed: 42)
        do {
            let context = ModelContext(try store.container(Item.self, backend: backend))
            for item in originals { context.insert(item) }
            try context.save()
        }
        let predicates = PredicateCorpus.predicates(sample: originals[17])
        #expect(predicates.count >= 50)
        let context = ModelContext(try store.container(Item.self, backend: backend))
        // Reverse by count, ties in the reverse of the order they were saved.
        let byCountThenRow: (Item, Item) -> Bool = { ($0.count, $0.persistentModelID) > ($1.count, $1.persistentModelID) }
        for (name, predicate) in predicates {
            let expected = originals.filter { Self.evaluate(predicate, $0) }
            let expectedIDs = Set(expected.map(\.persistentModelID))

            let fetched = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(\.persistentModelID)) == expectedIDs, "fetch: \(name)")
            #expect(fetched.count == expected.count, "fetch count: \(name)")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "fetchCount: \(name)")
            #expect(Set(try context.fetchIdentifiers(FetchDescriptor(predicate: predicate))) == expectedIDs, "fetchIdentifiers: \(name)")

            var page = FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.count, order: .reverse)])
            page.fetchOffset = 5
            page.fetchLimit = 17
            let expectedPage = expected.sorted(by: byCountThenRow).dropFirst(5).prefix(17).map(\.persistentModelID)
            #expect(try context.fetch(page).map(\.persistentModelID) == expectedPage, "page: \(name)")
            #expect(try context.fetchCount(page) == expectedPage.count, "page count: \(name)")
        }
    }

    /// A `Date` whose time interval is NaN is no point in time, and no store's date column holds
    /// one: the save throws, naming the model and property, with nothing written. (Were one stored,
    /// PostgreSQL would order it after every date, where Swift says it is neither before nor after
    /// any, so comparisons of dates keep NaN out as those of `Double`s do.)
    @Test(arguments: Backend.allCases) func aNaNDateIsRefusedByTheSave(_ backend: Backend) throws {
        let store = TemporaryStore()
        let originals = PredicateCorpus.items(count: 40, seed: 11)
        originals[7].date = Date(timeIntervalSinceReferenceDate: .nan)
        let context = ModelContext(try store.container(Item.self, backend: backend))
        for item in originals { context.insert(item) }
        let error = #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        #expect(error.map { "\($0)".contains("Item.date") && "\($0)".contains("NaN") } == true, "\(String(describing: error))")
        #expect(try ModelContext(try store.container(Item.self, backend: backend)).fetchCount(FetchDescriptor<Item>()) == 0)
        originals[7].date = .now
        try context.save()
        #expect(try ModelContext(try store.container(Item.self, backend: backend)).fetchCount(FetchDescriptor<Item>()) == 40)
    }

    /// Sorting by text follows Swift's documented String order: canonically equivalent strings tie,
    /// others order by the Unicode scalars of their NFC forms. (The expected order is computed from
    /// NFC bytes because `String.<` itself is not transitive around U+212A KELVIN SIGN.)
    @Test func textSortMatchesSwiftOrder() throws {
        let store = TemporaryStore()
        let originals = PredicateCorpus.items(count: 400, seed: 7)
        do {
            let context = ModelContext(try store.container(Item.self))
            for item in originals { context.insert(item) }
            try context.save()
        }
        let context = ModelContext(try store.container(Item.self))
        let fetched = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name), SortDescriptor(\.date, order: .reverse)]))
        func nfc(_ text: String) -> [UInt8] { Array(text.precomposedStringWithCanonicalMapping.utf8) }
        let expected = originals.sorted { nfc($0.name) != nfc($1.name) ? nfc($0.name).lexicographicallyPrecedes(nfc($1.name)) : ($0.date != $1.date ? $0.date > $1.date : $0.persistentModelID < $1.persistentModelID) }
        #expect(fetched.map(\.persistentModelID) == expected.map(\.persistentModelID))
        let byPrice = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.price), SortDescriptor(\.big, order: .reverse)]))
        let expectedByPrice = originals.sorted { $0.price != $1.price ? $0.price < $1.price : ($0.big != $1.big ? $0.big > $1.big : $0.persistentModelID < $1.persistentModelID) }
        #expect(byPrice.map(\.persistentModelID) == expectedByPrice.map(\.persistentModelID))
    }

    /// With unsaved inserts, changes and deletions, fetches still equal Swift evaluation over the
    /// context's current models.
    @Test(arguments: Backend.allCases) func pendingChangesAreIncluded(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        var live = PredicateCorpus.items(count: Self.rows(backend, sqlite: (150, 600), other: (100, 300)), seed: 3)
        for item in live { context.insert(item) }
        try context.save()
        for item in live.prefix(50) { item.count = 99 }
        for item in live[50..<80] { context.delete(item) }
        live.removeSubrange(50..<80)
        let fresh = PredicateCorpus.items(count: 40, seed: 4)
        for item in fresh { context.insert(item) }
        live += fresh
        for (name, predicate) in PredicateCorpus.predicates(sample: live[3]) {
            let expected = Set(live.filter { Self.evaluate(predicate, $0) }.map(ObjectIdentifier.init))
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(ObjectIdentifier.init)) == expected, "pending fetch: \(name)")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "pending count: \(name)")

            var page = FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.count, order: .reverse), SortDescriptor(\.name)])
            page.fetchOffset = 3
            page.fetchLimit = 11
            let matching = live.filter { Self.evaluate(predicate, $0) }
            let paged = try context.fetch(page)
            #expect(paged.count == min(11, max(0, matching.count - 3)), "pending page size: \(name)")
            // Ties in the sort keys may come in any order: compare the keys, and that every model matches.
            let expectedKeys = matching.sorted(using: page.sortBy).dropFirst(3).prefix(11).map { [$0.count] as [AnyHashable] + [$0.name] }
            #expect(paged.map { [$0.count] as [AnyHashable] + [$0.name] } == expectedKeys, "pending page: \(name)")
            #expect(paged.allSatisfy { expected.contains(ObjectIdentifier($0)) }, "pending page members: \(name)")
            #expect(try context.fetchCount(page) == paged.count, "pending page count: \(name)")
        }
        var unsavedExcluded = FetchDescriptor<Item>(predicate: #Predicate { $0.count == 99 })
        unsavedExcluded.includePendingChanges = false
        #expect(try context.fetch(unsavedExcluded).allSatisfy { $0.count == 99 })
        #expect(try context.fetchCount(unsavedExcluded) < 50)
    }
}
