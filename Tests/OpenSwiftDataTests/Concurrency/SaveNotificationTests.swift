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
    /// Keeps the identifiers of each kind that the last `didSave` of `context` carried, by key.
    fileprivate static func recordDidSave(of context: ModelContext) -> (Box<[String: [PersistentIdentifier]]>, any NSObjectProtocol) {
        let received = Box<[String: [PersistentIdentifier]]>([:])
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { notification in
            var result: [String: [PersistentIdentifier]] = [:]
            for key in [ModelContext.NotificationKey.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers] {
                result[key.rawValue] = notification.userInfo?[key.rawValue] as? [PersistentIdentifier] ?? []
            }
            received.value = result
        }
        return (received, observer)
    }

    @Test func didSaveCarriesTheChangedIdentifiers() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self))
        let kept = makeItem(1), dropped = makeItem(2)
        context.insert(kept)
        context.insert(dropped)
        try context.save()

        let (received, observer) = Self.recordDidSave(of: context)
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

    /// A notification an observer keeps reads as it was posted after later saves, including one
    /// made by an observer of the save before it, while that save's notification is being posted.
    @Test func aKeptDidSaveNotificationKeepsItsIdentifiers() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self))
        let kept = Box<[Notification]>([])
        let follower = makeItem(2)
        // The observer runs on the saving thread, inside the post (`queue: nil`).
        let shared = Box((context, follower))
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { notification in
            kept.value.append(notification)
            // The first save's observer saves again, inside the post.
            if kept.value.count == 1 {
                let (context, follower) = shared.value
                context.insert(follower)
                #expect(throws: Never.self) { try context.save() }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let first = makeItem(1)
        context.insert(first)
        try context.save()
        first.count = 10
        try context.save()

        func identifiers(_ notification: Notification, _ key: ModelContext.NotificationKey) -> [PersistentIdentifier]? {
            notification.userInfo?[key.rawValue] as? [PersistentIdentifier]
        }
        let notifications = kept.value
        try #require(notifications.count == 3)
        #expect(identifiers(notifications[0], .insertedIdentifiers) == [first.persistentModelID])
        #expect(identifiers(notifications[0], .updatedIdentifiers) == [])
        #expect(identifiers(notifications[1], .insertedIdentifiers) == [follower.persistentModelID], "the save made inside the first post")
        #expect(identifiers(notifications[2], .insertedIdentifiers) == [])
        #expect(identifiers(notifications[2], .updatedIdentifiers) == [first.persistentModelID])
        #expect(identifiers(notifications[2], .deletedIdentifiers) == [])
        #expect(notifications.allSatisfy { $0.userInfo?.count == 3 })
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

    /// The identifiers a save reports are the models' own, for subclasses and for models of
    /// different stores in one save, and they find the models again after the store is reopened.
    @Test func reportedIdentifiersAreTheModelsOwnAcrossSubclassesAndStores() throws {
        let pictures = TemporaryStore(name: "Pictures.store")
        let items = TemporaryStore(name: "Items.store")
        func container() throws -> ModelContainer {
            try ModelContainer(for: Schema([MediaItem.self, Picture.self, Clip.self, Album.self, Item.self]), configurations: [
                ModelConfiguration("media", schema: Schema([MediaItem.self, Picture.self, Clip.self, Album.self]), url: pictures.url),
                ModelConfiguration("items", schema: Schema([Item.self]), url: items.url),
            ])
        }
        let context = ModelContext(try container())
        let (received, observer) = Self.recordDidSave(of: context)
        defer { NotificationCenter.default.removeObserver(observer) }
        func reported(_ key: ModelContext.NotificationKey) -> Set<PersistentIdentifier> { Set(received.value[key.rawValue] ?? []) }

        let picture = Picture(title: "dunes", resolution: 12)
        let clip = Clip(title: "waves", footage: 3.5)
        let base = MediaItem(title: "plain")
        let item = makeItem(1)
        let doomed = makeItem(2)
        // Seen as its superclass, a new model has the identifier of its own class.
        let seenAsBase: MediaItem = picture
        #expect(seenAsBase.persistentModelID == picture.persistentModelID)
        #expect(seenAsBase.persistentModelID.entityName == "Picture")
        // Inserted as the superclass, as a list of a class hierarchy is.
        for model in [picture, clip, base] as [MediaItem] { context.insert(model) }
        context.insert(item)
        context.insert(doomed)
        try context.save()
        let inserted: [any PersistentModel] = [picture, clip, base, item, doomed]
        #expect(reported(.insertedIdentifiers) == Set(inserted.map(\.persistentModelID)))
        #expect(Set(inserted.map { $0.persistentModelID.entityName }) == ["Picture", "Clip", "MediaItem", "Item"])
        #expect(picture.persistentModelID.storeIdentifier != item.persistentModelID.storeIdentifier)

        picture.rating = 5
        item.count = 40
        try context.delete(model: Item.self, where: #Predicate { $0.count == 2 })
        try context.save()
        #expect(reported(.updatedIdentifiers) == [picture.persistentModelID, item.persistentModelID])
        #expect(reported(.deletedIdentifiers) == [doomed.persistentModelID])

        let reopened = ModelContext(try container())
        #expect((reopened.model(for: picture.persistentModelID) as? Picture)?.rating == 5)
        #expect((reopened.model(for: clip.persistentModelID) as? Clip)?.footage == 3.5)
        #expect((reopened.model(for: item.persistentModelID) as? Item)?.count == 40)
        #expect(try reopened.fetchCount(FetchDescriptor<Item>()) == 1)
    }
}
