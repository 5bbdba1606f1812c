import Foundation
import Testing
@testable import OpenSwiftData

/// `SortDescriptor(\.name, comparator: .localizedStandard)` (and `.localized`), as SwiftData code
/// writes it: the store's order equals Swift's `localizedStandardCompare(_:)` order of the same
/// models, on every backend, for attributes, optional attributes and a to-one relationship's
/// attribute, with pages and unsaved changes.
@Suite struct LocalizedSortTests {
    /// Names where the Finder's order and code-point order disagree: case, accents, full-width
    /// letters, numbers inside text, ligatures, and ties that differ only in case.
    static let words = [
        "banana", "Banana", "apple", "Apple", "cherry", "Éclair", "eclair", "éclair", "Zebra", "zebra",
        "file2", "file10", "file1", "File20", "10", "9", "straße", "strasse", "ａpple", "Ωmega", "omega",
        "item 3", "item 03", "item-3", "_under", "Æther", "aether", "naïve", "naive", "", " space",
    ]

    /// Items named by `words`, some twice, with every third note `nil`, in a scrambled order.
    static func items(seed: UInt64) -> [Item] {
        var generator = SeededGenerator(seed: seed)
        return (0..<90).map { number in
            let name = words[Int(generator.next() % UInt64(words.count))]
            let note = number % 3 == 0 ? nil : words[Int(generator.next() % UInt64(words.count))]
            return Item(name: name, note: note, count: number, optionalCount: nil, score: 0, optionalScore: nil, flag: false,
                        date: Date(timeIntervalSinceReferenceDate: Double(number)), price: 0, big: 0, code: UUID(), mood: .calm)
        }
    }

    /// Swift's order of `items` by a comparator on `name`, then by `count`.
    static func expected(_ items: [Item], by comparator: LocalizedStringComparator, reverse: Bool) -> [Int] {
        items.sorted { lhs, rhs in
            let order = comparator.compare(lhs.name, rhs.name)
            if order != .orderedSame { return (order == .orderedAscending) != reverse }
            return lhs.count < rhs.count
        }.map(\.count)
    }

    @Test(arguments: Backend.allCases)
    func attributesSortAsLocalizedStandardCompareDoes(_ backend: Backend) throws {
        let store = TemporaryStore()
        let originals = Self.items(seed: 11)
        do {
            let context = ModelContext(try store.container(Item.self, backend: backend))
            originals.forEach(context.insert)
            try context.save()
        }
        let context = ModelContext(try store.container(Item.self, backend: backend))
        for comparator in [LocalizedStringComparator.localizedStandard, .localized] {
            for order in [SortOrder.forward, .reverse] {
                let descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name, comparator: comparator, order: order), SortDescriptor(\.count)])
                let expected = Self.expected(originals, by: comparator, reverse: order == .reverse)
                #expect(try context.fetch(descriptor).map(\.count) == expected, "\(comparator), \(order)")

                var page = descriptor
                page.fetchOffset = 7
                page.fetchLimit = 20
                #expect(try context.fetch(page).map(\.count) == Array(expected.dropFirst(7).prefix(20)), "page: \(comparator), \(order)")
            }
        }
        // The order differs from code-point order, so the comparator was applied.
        let lexical = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name), SortDescriptor(\.count)])).map(\.count)
        #expect(lexical != Self.expected(originals, by: .localizedStandard, reverse: false))
    }

    @Test(arguments: Backend.allCases)
    func optionalAttributesSortWithNilFirst(_ backend: Backend) throws {
        let store = TemporaryStore()
        let originals = Self.items(seed: 12)
        let context = ModelContext(try store.container(Item.self, backend: backend))
        originals.forEach(context.insert)
        try context.save()
        for order in [SortOrder.forward, .reverse] {
            let fetched = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.note, comparator: .localizedStandard, order: order), SortDescriptor(\.count)]))
            let expected = originals.sorted { lhs, rhs in
                switch (lhs.note, rhs.note) {
                case (nil, nil): return lhs.count < rhs.count
                case (nil, _): return order == .forward
                case (_, nil): return order == .reverse
                case (let left?, let right?):
                    let result = left.localizedStandardCompare(right)
                    return result == .orderedSame ? lhs.count < rhs.count : (result == .orderedAscending) == (order == .forward)
                }
            }
            #expect(fetched.map(\.count) == expected.map(\.count), "\(order)")
        }
    }

    /// Unsaved inserts and changes take their places in the same order.
    @Test(arguments: Backend.allCases)
    func pendingChangesSortTheSameWay(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        var live = Self.items(seed: 13)
        live.forEach(context.insert)
        try context.save()
        let added = Self.items(seed: 14).prefix(10).map { item in
            item.count += 1_000
            return item
        }
        added.forEach(context.insert)
        live[0].name = "Aardvark"
        live[1].name = "zz top"
        live += added
        var descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard), SortDescriptor(\.count)])
        descriptor.fetchLimit = 30
        #expect(try context.fetch(descriptor).map(\.count) == Array(Self.expected(live, by: .localizedStandard, reverse: false).prefix(30)))
    }

    @Test(arguments: Backend.allCases)
    func aRelatedModelsAttributeSortsTheSameWay(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Journey.self, backend: backend))
        var generator = SeededGenerator(seed: 15)
        for number in 0..<40 {
            let outing = Outing(title: "\(number)", cost: number)
            context.insert(outing)
            if number % 5 != 0 {
                outing.journey = Journey(name: Self.words[Int(generator.next() % UInt64(Self.words.count))])
            }
        }
        try context.save()
        let fetched = try ModelContext(try store.container(Journey.self, backend: backend)).fetch(
            FetchDescriptor<Outing>(sortBy: [SortDescriptor(\.journey?.name, comparator: .localizedStandard), SortDescriptor(\.cost)]))
        let expected = fetched.sorted { lhs, rhs in
            switch (lhs.journey?.name, rhs.journey?.name) {
            case (nil, nil): return lhs.cost < rhs.cost
            case (nil, _): return true
            case (_, nil): return false
            case (let left?, let right?):
                let result = left.localizedStandardCompare(right)
                return result == .orderedSame ? lhs.cost < rhs.cost : result == .orderedAscending
            }
        }
        #expect(fetched.count == 40)
        #expect(fetched.map(\.cost) == expected.map(\.cost))
    }

    /// SQLite sorts by the comparator in its query (a page needs no full fetch); PostgreSQL, whose
    /// collations are not Foundation's, leaves the sort to Swift.
    @Test func theSQLiteStoreSortsInSQL() throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self, backend: .sqlite)
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])
        let plan = context.plan(for: descriptor, entity: try #require(container.schema.entitiesByName["Item"]))
        #expect(plan.sortIsExact)
        #expect(plan.sort.first?.collation == .localizedStandard)
    }

    /// The descriptor orders models in Swift as the store does, and reads the property's value.
    @Test func theDescriptorComparesModelsInSwift() {
        let descriptor = SortDescriptor<Item>(\.name, comparator: .localizedStandard)
        let items = Self.items(seed: 16)
        let sorted = items.sorted(using: descriptor).map(\.name)
        #expect(sorted == items.map(\.name).sorted { $0.localizedStandardCompare($1) == .orderedAscending })
        #expect(sorted != items.map(\.name).sorted(), "not code-point order")
    }
}
