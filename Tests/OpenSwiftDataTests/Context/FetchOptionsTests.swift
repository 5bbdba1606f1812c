import Foundation
import Testing
import OpenSwiftData

/// FetchDescriptor options and the lazy fetch forms.
@Suite struct FetchOptionsTests {
    /// A store of 50 items, saved and reopened.
    private func seeded() throws -> (TemporaryStore, ModelContext) {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self))
        for index in 0..<50 { context.insert(makeItem(index)) }
        try context.save()
        return (store, ModelContext(try store.container(Item.self)))
    }

    @Test func sortsBySeveralKeysWithOptionalsAndDirections() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        let descriptor = FetchDescriptor<Item>(sortBy: [
            SortDescriptor(\.note), SortDescriptor(\.optionalCount, order: .reverse), SortDescriptor(\.name),
        ])
        let fetched = try context.fetch(descriptor)
        let expected = try context.fetch(FetchDescriptor<Item>()).sorted(using: descriptor.sortBy)
        #expect(fetched.map(\.name) == expected.map(\.name))
        #expect(fetched.count == 50)
    }

    /// A page of an order with ties is the slice of the whole order, ties in the order the models
    /// were saved, or in its reverse after a reverse last descriptor (a page's rows are found by
    /// their keys first).
    @Test func pagesOfAnOrderWithTiesAreSlicesOfTheWholeOrder() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        // `note` is nil for every third item, `optionalCount` for every fourth: runs of ties.
        let sorts: [[SortDescriptor<Item>]] = [
            [SortDescriptor(\.note)],
            [SortDescriptor(\.note, order: .reverse)],
            [SortDescriptor(\.optionalCount, order: .reverse)],
            [SortDescriptor(\.note, order: .reverse), SortDescriptor(\.optionalCount, order: .reverse)],
        ]
        for sort in sorts {
            let whole = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count != 7 }, sortBy: sort)).map(\.count)
            #expect(whole.count == 49)
            for (offset, limit) in [(0, 1), (0, 10), (3, 11), (20, 40), (45, 10), (60, 5)] {
                var page = FetchDescriptor<Item>(predicate: #Predicate { $0.count != 7 }, sortBy: sort)
                page.fetchOffset = offset
                page.fetchLimit = limit
                #expect(try context.fetch(page).map(\.count) == Array(whole.dropFirst(offset).prefix(limit)), "\(sort) \(offset) \(limit)")
            }
        }
        var first = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.note)])
        first.fetchLimit = 4
        #expect(try context.fetch(first).map(\.count) == [0, 3, 6, 9])
        first.sortBy = [SortDescriptor(\.note, order: .reverse)]
        first.fetchOffset = 33
        #expect(try context.fetch(first).map(\.count) == [48, 45, 42, 39])
    }

    @Test func limitAndOffsetPage() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        var descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.count)])
        descriptor.fetchOffset = 10
        descriptor.fetchLimit = 5
        #expect(try context.fetch(descriptor).map(\.count) == [10, 11, 12, 13, 14])
        #expect(try context.fetchCount(descriptor) == 5)
        descriptor.fetchOffset = 48
        #expect(try context.fetch(descriptor).map(\.count) == [48, 49])
    }

    /// A limit of zero or less fetches nothing (`nil` is "no limit"), an offset below zero skips
    /// nothing: the same whether the store pages or the context does (with unsaved changes).
    @Test func limitsAndOffsetsBelowOneAreTheSameOnEveryPath() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        for (limit, offset, expected) in [(-1, nil, []), (0, nil, []), (3, -2, [0, 1, 2]), (Int.max, 47, [47, 48, 49]), (2, Int.max, [])] as [(Int?, Int?, [Int])] {
            var descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.count < 1_000 }, sortBy: [SortDescriptor(\.count)])
            descriptor.fetchLimit = limit
            descriptor.fetchOffset = offset
            #expect(try context.fetch(descriptor).map(\.count) == expected, "limit \(String(describing: limit)), offset \(String(describing: offset))")
            #expect(try context.fetchCount(descriptor) == expected.count)
            #expect(try context.fetchIdentifiers(descriptor).count == expected.count)
            #expect(try context.fetch(descriptor, batchSize: 2).map(\.count) == expected)
        }
        // With an unsaved change the context pages in Swift, and answers the same.
        let pending = makeItem(2_000)
        context.insert(pending)
        for (limit, offset, expected) in [(-1, nil, []), (0, nil, []), (3, -2, [0, 1, 2])] as [(Int?, Int?, [Int])] {
            var descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.count < 1_000 }, sortBy: [SortDescriptor(\.count)])
            descriptor.fetchLimit = limit
            descriptor.fetchOffset = offset
            #expect(try context.fetch(descriptor).map(\.count) == expected, "pending: limit \(String(describing: limit)), offset \(String(describing: offset))")
            #expect(try context.fetchCount(descriptor) == expected.count)
        }
    }

    @Test func pendingChangesAreIncludedUnlessExcluded() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        context.insert(makeItem(1000))
        let first = try #require(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 0 })).first)
        first.count = 2000
        var descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.count >= 1000 })
        #expect(Set(try context.fetch(descriptor).map(\.count)) == [1000, 2000])
        #expect(try context.fetchCount(descriptor) == 2)
        descriptor.includePendingChanges = false
        #expect(try context.fetch(descriptor).isEmpty)
    }

    @Test func batchedFetchLoadsLazilyAndMatchesFetch() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        let descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.count % 3 != 0 }, sortBy: [SortDescriptor(\.count)])
        let batched = try context.fetch(descriptor, batchSize: 7)
        let all = try context.fetch(descriptor)
        #expect(batched.count == all.count)
        #expect(batched.map(\.count) == all.map(\.count))
        #expect(batched[5] === all[5])
    }

    @Test func enumerateVisitsEveryMatchInOrder() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        var visited: [Int] = []
        try context.enumerate(FetchDescriptor<Item>(predicate: #Predicate { $0.flag }, sortBy: [SortDescriptor(\.count)]), batchSize: 4) {
            visited.append($0.count)
        }
        #expect(visited == Array(stride(from: 0, to: 50, by: 2)))
    }

    @Test func propertiesToFetchStillGivesCompleteModels() throws {
        let (store, context) = try seeded()
        defer { withExtendedLifetime(store) {} }
        var descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.count == 7 })
        descriptor.propertiesToFetch = [\.name]
        let item = try #require(try context.fetch(descriptor).first)
        #expect(item.name == "item 7")
        #expect(item.note == "note 7", "properties left out load on first access")
        #expect(item.price == Decimal(7) / 100)
    }

    @Test func fetchingAnEmptyStoreGivesNothing() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self))
        #expect(try context.fetch(FetchDescriptor<Item>()).isEmpty)
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 0)
        #expect(try context.fetch(FetchDescriptor<Item>(), batchSize: 10).isEmpty)
    }
}
