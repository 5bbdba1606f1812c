import Foundation
import Observation
import Testing
import OpenSwiftData

/// A value the test and a notification or observation callback share.
private final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// What other contexts learn when one context saves.
@Suite struct SaveNotificationTests {
    @Test func didSaveCarriesTheChangedIdentifiers() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self))
        let kept = makeItem(1), dropped = makeItem(2)
        context.insert(kept)
        context.insert(dropped)
        try context.save()

        let received = Box<[String: [PersistentIdentifier]]>([:])
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { notification in
            var result: [String: [PersistentIdentifier]] = [:]
            for key in [ModelContext.NotificationKey.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers] {
                result[key.rawValue] = notification.userInfo?[key.rawValue] as? [PersistentIdentifier] ?? []
            }
            received.value = result
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let added = makeItem(3)
        context.insert(added)
        kept.count = 100
        context.delete(dropped)
        try context.save()
        #expect(received.value[ModelContext.NotificationKey.insertedIdentifiers.rawValue] == [added.persistentModelID])
        #expect(received.value[ModelContext.NotificationKey.updatedIdentifiers.rawValue] == [kept.persistentModelID])
        #expect(received.value[ModelContext.NotificationKey.deletedIdentifiers.rawValue] == [dropped.persistentModelID])
    }

    @Test func savedChangesIsAnAsyncSequenceOfEverySave() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let changes = container.savedChanges()
        let context = ModelContext(container)
        let item = makeItem(1)
        context.insert(item)
        try context.save()
        item.count = 7
        try context.save()

        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.insertedIdentifiers == [item.persistentModelID])
        #expect(second?.updatedIdentifiers == [item.persistentModelID])
    }

    @MainActor @Test func theMainContextShowsBackgroundSavesWithoutRefetching() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let item = makeItem(1)
        container.mainContext.insert(item)
        try container.mainContext.save()

        try await SavedItemFixture.edit(item.persistentModelID, in: container) { $0.name = "from the background" }
        await waitUntil { item.name == "from the background" }
        #expect(item.name == "from the background")
    }

    @MainActor @Test func observationFiresWhenAnotherContextChangesARegisteredModel() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let item = makeItem(1)
        container.mainContext.insert(item)
        try container.mainContext.save()

        let fired = Box(false)
        withObservationTracking {
            _ = item.count
        } onChange: {
            fired.value = true
        }
        try await SavedItemFixture.edit(item.persistentModelID, in: container) { $0.count = 999 }
        await waitUntil { fired.value }
        #expect(fired.value)
        #expect(item.count == 999)
    }

    @Test func unsavedLocalEditsSurviveAMerge() throws {
        let fixture = try SavedItemFixture()
        let (container, mine, item) = (fixture.container, fixture.context, fixture.item)

        item.name = "my unsaved edit"
        let theirs = ModelContext(container)
        let copy = try #require(theirs.model(for: item.persistentModelID) as? Item)
        copy.name = "their name"
        copy.count = 42
        try theirs.save()

        mine.processPendingChanges()
        #expect(item.name == "my unsaved edit")
        #expect(item.count == 42)
    }

    @Test func modelsDeletedElsewhereReportIsDeletedAfterAMerge() throws {
        let fixture = try SavedItemFixture()
        let (container, mine, item) = (fixture.container, fixture.context, fixture.item)

        let theirs = ModelContext(container)
        try theirs.delete(model: Item.self)
        try theirs.save()
        #expect(try mine.fetch(FetchDescriptor<Item>()).isEmpty)
        #expect(item.isDeleted)
    }

    @Test func sendableTypesCrossIsolation() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        func requireSendable<T: Sendable>(_ value: T) -> T { value }
        let context = ModelContext(container)
        let item = makeItem(1)
        context.insert(item)
        try context.save()
        let id = requireSendable(item.persistentModelID)
        let schema = requireSendable(container.schema)
        let resolved = await Task.detached {
            ModelContext(requireSendable(container)).model(for: id) is Item && schema.entities.count == 1
        }.value
        #expect(resolved)
    }

    @Test func aSaveTooLargeToLogInDetailStillReachesOtherContexts() throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let seed = ModelContext(container)
        for index in 0..<10_100 { seed.insert(makeItem(index)) }
        try seed.save()

        let mine = ModelContext(container)
        let watched = try mine.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count < 2 }, sortBy: [SortDescriptor(\.count)]))
        #expect(watched.map(\.count) == [0, 1])

        let theirs = ModelContext(container)
        for item in try theirs.fetch(FetchDescriptor<Item>()) { item.name = "bulk \(item.count)" }
        try theirs.delete(model: Item.self, where: #Predicate { $0.count == 1 })
        try theirs.save()

        mine.processPendingChanges()
        #expect(watched[0].name == "bulk 0")
        #expect(watched[1].isDeleted)
    }

    @Test func batchDeletesReportEveryRowTheyRemove() async throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let context = ModelContext(container)
        for index in 0..<30 { context.insert(makeItem(index)) }
        try context.save()
        let evenIDs = Set(try context.fetchIdentifiers(FetchDescriptor<Item>(predicate: #Predicate { $0.count % 2 == 0 })))
        let allIDs = Set(try context.fetchIdentifiers(FetchDescriptor<Item>()))

        var changes = container.savedChanges().makeAsyncIterator()
        let deleter = ModelContext(container)
        try deleter.delete(model: Item.self, where: #Predicate { $0.count % 2 == 0 })
        try deleter.save()
        try deleter.delete(model: Item.self)
        try deleter.save()
        let first = await changes.next()
        let second = await changes.next()
        #expect(Set(first?.deletedIdentifiers ?? []) == evenIDs)
        #expect(Set(second?.deletedIdentifiers ?? []) == allIDs.subtracting(evenIDs))
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 0)
    }
}
