import Foundation
import Testing
@testable import OpenSwiftData

/// Models that tie on every sort descriptor come in the order they were first saved, or in its
/// reverse after a reverse last descriptor: in every store, in the sorts the context makes in
/// Swift (unsaved models count, and a custom store's models are sorted there) and in live
/// results. A reverse sort by one property is the forward sort reversed.
@MainActor
@Suite struct TieOrderTests {
    /// 30 items saved ten at a time, `count` 0, 1 and 2 in turn, `note` `nil`, "a" or "b" and
    /// `optionalCount` `nil` for every fourth, named by their place in the order they were saved.
    private func seededContainer(_ store: TemporaryStore, backend: Backend) throws -> ModelContainer {
        let context = ModelContext(try store.container(Item.self, backend: backend))
        for index in 0..<30 {
            let item = makeItem(index)
            item.count = index % 3
            item.note = [nil, "a", "b"][index % 3]
            context.insert(item)
            if index % 10 == 9 { try context.save() }
        }
        return try store.container(Item.self, backend: backend)
    }

    /// The indices of the items, in the order the fetch returns them.
    private func order(_ descriptor: FetchDescriptor<Item>, in context: ModelContext) throws -> [Int] {
        try context.fetch(descriptor).map { Int($0.name.dropFirst("item ".count)) ?? -1 }
    }

    @Test(arguments: Backend.allCases) func aReverseSortIsTheForwardSortReversed(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try seededContainer(store, backend: backend))
        let byCount = [0, 1, 2].flatMap { count in stride(from: count, to: 30, by: 3) }
        #expect(try order(FetchDescriptor(sortBy: [SortDescriptor(\.count)]), in: context) == byCount)
        #expect(try order(FetchDescriptor(sortBy: [SortDescriptor(\.count, order: .reverse)]), in: context) == byCount.reversed())

        let pairs: [(SortDescriptor<Item>, SortDescriptor<Item>)] = [
            (SortDescriptor(\.note), SortDescriptor(\.note, order: .reverse)),
            (SortDescriptor(\.note, comparator: .localizedStandard), SortDescriptor(\.note, comparator: .localizedStandard, order: .reverse)),
            (SortDescriptor(\.optionalCount), SortDescriptor(\.optionalCount, order: .reverse)),
        ]
        for (forward, reverse) in pairs {
            let up = try order(FetchDescriptor(sortBy: [forward]), in: context)
            let down = try order(FetchDescriptor(sortBy: [reverse]), in: context)
            #expect(up.count == 30)
            #expect(down == up.reversed(), "\(forward)")
            var page = FetchDescriptor<Item>(predicate: #Predicate { $0.name != "item 4" }, sortBy: [reverse])
            page.fetchOffset = 4
            page.fetchLimit = 9
            #expect(try order(page, in: context) == Array(down.filter { $0 != 4 }[4..<13]), "\(reverse)")
        }
        // The last descriptor decides: ties of (count forward, optionalCount reverse), the items
        // of one count whose optionalCount is nil (every fourth), come by key descending.
        let mixed = try order(FetchDescriptor(sortBy: [SortDescriptor(\.count), SortDescriptor(\.optionalCount, order: .reverse)]), in: context)
        let expected = [0, 1, 2].flatMap { count in
            let items = stride(from: count, to: 30, by: 3)
            return items.filter { $0 % 4 != 0 }.reversed() + items.filter { $0 % 4 == 0 }.reversed()
        }
        #expect(mixed == expected)
    }

    /// Unsaved models that tie with saved ones come after them, in the order they were made, and
    /// before them in a reverse sort; once saved, they stay where they were.
    @Test(arguments: Backend.allCases) func unsavedModelsComeAfterSavedOnesThatTie(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try seededContainer(store, backend: backend))
        for index in [31, 30, 32] {
            let item = makeItem(index)
            item.count = 1
            context.insert(item)
        }
        var ones = FetchDescriptor<Item>(predicate: #Predicate { $0.count == 1 }, sortBy: [SortDescriptor(\.count)])
        let saved = Array(stride(from: 1, to: 30, by: 3))
        #expect(try order(ones, in: context) == saved + [31, 30, 32])
        ones.sortBy = [SortDescriptor(\.count, order: .reverse)]
        #expect(try order(ones, in: context) == (saved + [31, 30, 32]).reversed())
        try context.save()
        let reopened = try order(ones, in: ModelContext(try store.container(Item.self, backend: backend)))
        #expect(reopened == (saved + [31, 30, 32]).reversed(), "\(reopened)")
    }

    /// A live query places saved models that tie where a fetch would.
    @Test func liveResultsPlaceTiesAsAFetchDoes() throws {
        let store = TemporaryStore()
        let container = try seededContainer(store, backend: TemporaryStore.defaultBackend)
        let context = ModelContext(container)
        let sort = [SortDescriptor(\Item.count, order: .reverse)]
        let observer = try ResultsObserver<Item, Never>(filterBy: #Predicate { $0.count >= 1 }, sortBy: sort, modelContext: context)
        let other = ModelContext(container)
        for index in 30..<36 {
            let item = makeItem(index)
            item.count = index % 3
            other.insert(item)
        }
        try other.save()
        let fetched = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count >= 1 }, sortBy: sort))
        #expect(observer.results.map(\.name) == fetched.map(\.name))
        #expect(observer.results.prefix(3).map(\.name) == ["item 35", "item 32", "item 29"])
    }
}
