import Foundation
import Testing
@testable import OpenSwiftData

/// A class hierarchy (`MediaItem` with `Picture` and `Clip`) seen through live queries, history and
/// other contexts' saves, with models inserted and deleted as their superclass.
@MainActor
@Suite struct InheritanceAcrossContextsTests {
    let store = TemporaryStore()

    func container(_ backend: Backend) throws -> ModelContainer {
        try store.container(MediaItem.self, Picture.self, Clip.self, Album.self, backend: backend)
    }

    @Test(arguments: Backend.allCases)
    func aLiveQueryOfTheSuperclassFollowsEverySubclass(_ backend: Backend) throws {
        let container = try container(backend)
        let context = ModelContext(container)
        let rated = try ResultsObserver<MediaItem, Never>(
            filterBy: #Predicate { $0.rating >= 2 }, sortBy: [SortDescriptor(\.title)], modelContext: context)
        let pictures = try ResultsObserver<Picture, Never>(sortBy: [SortDescriptor(\.title)], modelContext: context)
        #expect(rated.results.isEmpty)

        let items: [MediaItem] = [Picture(title: "b", resolution: 1, rating: 3), Clip(title: "a", footage: 2), MediaItem(title: "c", rating: 2)]
        for item in items { context.insert(item) }
        try context.save()
        #expect(rated.results.map(\.title) == ["b", "c"])
        #expect(rated.results.first is Picture)
        #expect(pictures.results.map(\.title) == ["b"])

        let other = ModelContext(container)
        let clip = try #require(try other.fetch(FetchDescriptor<Clip>()).first)
        clip.rating = 5
        try other.save()
        #expect(rated.results.map(\.title) == ["a", "b", "c"], "another context's change to an inherited property")
        #expect((rated.results.first as? Clip)?.footage == 2)

        let picture: MediaItem = try #require(try other.fetch(FetchDescriptor<Picture>()).first)
        other.delete(picture)
        try other.save()
        #expect(rated.results.map(\.title) == ["a", "c"])
        #expect(pictures.results.isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func otherContextsSeeSubclassChangesAsTheirOwnClass(_ backend: Backend) throws {
        let container = try container(backend)
        let mine = ModelContext(container)
        let picture = Picture(title: "dunes", resolution: 12)
        mine.insert(picture as MediaItem)
        try mine.save()

        let theirs = ModelContext(container)
        let seen = try #require(theirs.model(for: picture.persistentModelID) as? Picture)
        #expect(seen.resolution == 12)
        seen.resolution = 24
        seen.title = "dunes at noon"
        try theirs.save()

        mine.processPendingChanges()
        #expect(picture.resolution == 24)
        #expect(picture.title == "dunes at noon")
        let everything = try ModelContext(try self.container(backend)).fetch(FetchDescriptor<MediaItem>())
        #expect(everything.count == 1)
        #expect((everything.first as? Picture)?.resolution == 24)
    }

    /// (A custom `DataStore` keeps its own history, if any: no default transactions to look at.)
    @Test(arguments: Backend.allCases.filter { $0 != .dataStore })
    func historyNamesEachModelsOwnClass(_ backend: Backend) throws {
        let container = try container(backend)
        let context = ModelContext(container)
        let picture = Picture(title: "p", resolution: 4)
        let clip = Clip(title: "c", footage: 1)
        for item in [picture, clip] as [MediaItem] { context.insert(item) }
        try context.save()
        picture.rating = 2
        try context.save()
        context.delete(clip as MediaItem)
        try context.save()

        let history = try ModelContext(try self.container(backend)).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 3)
        let inserted = Set(history[0].changes.map(\.changedPersistentIdentifier))
        #expect(inserted == [picture.persistentModelID, clip.persistentModelID])
        #expect(Set(inserted.map(\.entityName)) == ["Picture", "Clip"])
        guard case .update(let update as DefaultHistoryUpdate<Picture>) = try #require(history[1].changes.first) else {
            Issue.record("the second save is not an update of the picture: \(history[1].changes)")
            return
        }
        #expect(update.changedPersistentIdentifier == picture.persistentModelID)
        #expect(update.updatedAttributes.count == 1)
        guard case .delete(let deletion as DefaultHistoryDelete<Clip>) = try #require(history[2].changes.first) else {
            Issue.record("the third save is not the clip's deletion: \(history[2].changes)")
            return
        }
        #expect(deletion.changedPersistentIdentifier == clip.persistentModelID)
    }

    /// Predicates over a hierarchy as apps write them (a class test, a conditional cast to reach a
    /// subclass's property, class tests combined with other conditions) select exactly what
    /// evaluating them in Swift selects, from the store and with unsaved changes. (Composing with
    /// `evaluate` inside `#Predicate` is not available in Foundation on Linux.)
    @Test(arguments: Backend.allCases)
    func castsAndCombinedPredicatesMatchSwift(_ backend: Backend) throws {
        let container = try container(backend)
        let context = ModelContext(container)
        var items: [MediaItem] = []
        for index in 0..<24 {
            switch index % 3 {
            case 0: items.append(Picture(title: "picture \(index)", resolution: index * 100, rating: index % 5))
            case 1: items.append(Clip(title: "clip \(index)", footage: Double(index) / 2))
            default: items.append(MediaItem(title: "item \(index)", rating: index % 4))
            }
        }
        for item in items { context.insert(item) }
        try context.save()
        items[3].rating = 4   // unsaved: a pending change the fetch must see
        (items[4] as? Clip)?.footage = 100

        let predicates: [Predicate<MediaItem>] = [
            #Predicate { $0 is Clip },
            #Predicate { !($0 is Picture) && $0.rating >= 1 },
            #Predicate { item in
                if let picture = item as? Picture { picture.resolution > 900 } else { false }
            },
            #Predicate { ($0 as? Clip)?.footage ?? 0 > 5 },
            #Predicate { $0 is Clip && $0.title.contains("1") },
            #Predicate { $0 is Clip || $0.rating == 3 },
        ]
        for (index, predicate) in predicates.enumerated() {
            let expected = Set(items.filter { (try? predicate.evaluate($0)) == true }.map(\.persistentModelID))
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(\.persistentModelID)) == expected, "predicate \(index) with pending changes")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "count of predicate \(index)")
        }
        try context.save()
        let reopened = ModelContext(try self.container(backend))
        let all = try reopened.fetch(FetchDescriptor<MediaItem>())
        #expect(all.count == items.count)
        for (index, predicate) in predicates.enumerated() {
            let expected = Set(all.filter { (try? predicate.evaluate($0)) == true }.map(\.persistentModelID))
            let fetched = try reopened.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(\.persistentModelID)) == expected, "predicate \(index) after reopening")
            #expect(!expected.isEmpty, "predicate \(index) selects something")
        }
    }
}
