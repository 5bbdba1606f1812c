import Foundation
import Testing
import OpenSwiftData

/// A model actor as SwiftData users write them: imports in chunks, edits by identifier.
@ModelActor
actor ItemImporter {
    @discardableResult
    func importItems(_ range: Range<Int>, chunk: Int) throws -> [PersistentIdentifier] {
        var identifiers: [PersistentIdentifier] = []
        for start in stride(from: range.lowerBound, to: range.upperBound, by: chunk) {
            let items = (start..<min(start + chunk, range.upperBound)).map(makeItem)
            for item in items { modelContext.insert(item) }
            try modelContext.save()
            identifiers += items.map(\.persistentModelID)
        }
        return identifiers
    }

    func rename(_ id: PersistentIdentifier, to name: String) throws -> Bool {
        guard let item = self[id, as: Item.self] else { return false }
        item.name = name
        try modelContext.save()
        return true
    }

    func addToCounts(of ids: [PersistentIdentifier], amount: Int) throws {
        for id in ids {
            guard let item = self[id, as: Item.self] else { continue }
            item.count += amount
        }
        try modelContext.save()
    }

    func renameAll(_ ids: [PersistentIdentifier], prefix: String) throws {
        for id in ids {
            guard let item = self[id, as: Item.self] else { continue }
            item.name = "\(prefix) \(item.name)"
        }
        try modelContext.save()
    }

    func count() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Item>())
    }
}

/// `@ModelActor`, identifiers across actors, and contexts working in parallel on one store.
@Suite struct ModelActorTests {
    /// How many items the import tests write: several chunks of each size either way.
    static let items = TestCounts.count(quick: 2_000, full: 10_000)

    @MainActor @Test func anActorImportsInChunksAndTheMainContextSeesIt() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let importer = ItemImporter(modelContainer: container)
        try await importer.importItems(0..<Self.items, chunk: Self.items / 20)
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Item>()) == Self.items)
        #expect(try await importer.count() == Self.items)
        #expect(importer.modelContainer === container)
    }

    @Test func anIdentifierIsResolvedMutatedAndSavedInsideAnActor() async throws {
        let fixture = try SavedItemFixture()
        let (container, context, item, id) = (fixture.container, fixture.context, fixture.item, fixture.item.persistentModelID)

        let importer = ItemImporter(modelContainer: container)
        #expect(try await importer.rename(id, to: "renamed in an actor"))
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Item>()).map(\.name) == ["renamed in an actor"])
        #expect(item.name == "item 1", "a registered object keeps its value until its context merges")
        context.processPendingChanges()
        #expect(item.name == "renamed in an actor", "after a merge it shows the saved value")
    }

    @Test func unknownIdentifiersResolveToNil() async throws {
        let fixture = try SavedItemFixture()
        let id = fixture.item.persistentModelID
        fixture.context.delete(fixture.item)
        try fixture.context.save()
        #expect(try await ItemImporter(modelContainer: fixture.container).rename(id, to: "ghost") == false)
    }

    @Test func fourActorsInsertAndUpdateConcurrently() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        // Each actor inserts its own quarter of the items, then adds its number to each of them,
        // while the others do the same: every insert and every update must land.
        let quarter = Self.items / 4
        try await withThrowingTaskGroup(of: Void.self) { group in
            for actorIndex in 0..<4 {
                group.addTask {
                    let importer = ItemImporter(modelContainer: container)
                    let range = (actorIndex * quarter)..<((actorIndex + 1) * quarter)
                    let mine = try await importer.importItems(range, chunk: quarter / 10)
                    #expect(Set(mine).count == quarter)
                    try await importer.addToCounts(of: mine, amount: actorIndex + 1)
                }
            }
            try await group.waitForAll()
        }
        let items = try ModelContext(container).fetch(FetchDescriptor<Item>())
        #expect(items.count == quarter * 4)
        let sum = items.reduce(0) { $0 + $1.count }
        let expected: Int = (0..<(quarter * 4)).reduce(0, +) + quarter * (1 + 2 + 3 + 4)
        #expect(sum == expected)
    }

    @Test func concurrentSavesOfDifferentPropertiesOfOneRowBothLand() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let seed = ModelContext(container)
        for index in 0..<500 { seed.insert(makeItem(index)) }
        try seed.save()
        let ids = try seed.fetchIdentifiers(FetchDescriptor<Item>())
        // A save writes only the properties its context changed, so neither overwrites the other.
        async let renamed: Void = ItemImporter(modelContainer: container).renameAll(ids, prefix: "renamed")
        async let counted: Void = ItemImporter(modelContainer: container).addToCounts(of: ids, amount: 1_000)
        _ = try await (renamed, counted)
        let items = try ModelContext(container).fetch(FetchDescriptor<Item>())
        #expect(items.allSatisfy { $0.name.hasPrefix("renamed") && $0.count >= 1_000 })
    }

    @Test func readersRunWhileAWriterSaves() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let seed = ModelContext(container)
        for index in 0..<1_000 { seed.insert(makeItem(index)) }
        try seed.save()

        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                let writer = ModelContext(container)
                for round in 0..<20 {
                    for index in 0..<50 { writer.insert(makeItem(1_000 + round * 50 + index)) }
                    try writer.save()
                }
                return -1
            }
            let (readers, reads) = (TestCounts.count(quick: 4, full: 8), TestCounts.count(quick: 10, full: 40))
            for _ in 0..<readers {
                group.addTask {
                    let reader = ModelContext(container)
                    var last = 0
                    for _ in 0..<reads {
                        let count = try reader.fetchCount(FetchDescriptor<Item>())
                        // Saves commit whole: a reader sees 1,000 plus a multiple of 50, never less than before.
                        #expect(count >= last && (count - 1_000) % 50 == 0)
                        last = count
                        let flagged = try reader.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.flag }))
                        let allFlagged = flagged.allSatisfy { $0.flag }
                        #expect(allFlagged)
                    }
                    return last
                }
            }
            for try await _ in group {}
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 2_000)
    }
}
