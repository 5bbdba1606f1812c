import Foundation
import Testing
import OpenSwiftData

/// One object per row in a context, and identifiers that work across contexts and reopenings.
@Suite struct IdentityTests {
    @Test(arguments: Backend.allCases) func aContextHoldsOneObjectPerRow(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        let item = makeItem(1)
        context.insert(item)
        try context.save()
        let first = try context.fetch(FetchDescriptor<Item>())
        let second = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 1 }))
        #expect(first.first === item)
        #expect(second.first === item)
    }

    /// A fetch into a context that holds none of the entity's models registers them all at once,
    /// after the last row: every later fetch, identifier and change finds those same objects, in
    /// this container and after the store is opened again.
    @Test(arguments: Backend.allCases) func aFirstFetchRegistersEveryModelItMakes(_ backend: Backend) throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Item.self, backend: backend))
            for index in 0..<300 { context.insert(makeItem(index)) }
            try context.save()
        }
        for _ in 0..<2 {
            let context = ModelContext(try store.container(Item.self, backend: backend))
            let all = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.count)]))
            #expect(all.map(\.count) == Array(0..<300))
            #expect(Set(all.map(\.persistentModelID)).count == 300)
            let again = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count >= 150 }, sortBy: [SortDescriptor(\.count)]))
            #expect(again.count == 150 && zip(again, all.dropFirst(150)).allSatisfy { $0 === $1 })
            for item in all.prefix(20) {
                #expect(context.model(for: item.persistentModelID) as? Item === item)
                #expect(context.registeredModel(for: item.persistentModelID) as Item? === item)
            }
            // A change made through the first fetch's object is the one a save writes and the
            // next fetch shows.
            all[7].count = 7_000
            try context.save()
            #expect(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 7_000 })).first === all[7])
            all[7].count = 7
            try context.save()
        }
    }

    /// A model made from a row knows its context, its identifier and its store before any of its
    /// properties is read, however its class is declared: final (made with its key, context and
    /// location at once), open to subclasses, or holding `let`s (both given them after they are
    /// made). Each identifier finds the row in another context, and a change saved through the
    /// fetched object reaches the store.
    @Test(arguments: Backend.allCases) func aFetchedModelKnowsItsContextAndRowBeforeAnyRead(_ backend: Backend) throws {
        let store = TemporaryStore()
        func open() throws -> ModelContainer { try store.container(Item.self, Note.self, Instrument.self, Violin.self, backend: backend) }
        do {
            let context = ModelContext(try open())
            context.insert(makeItem(4))
            context.insert(Note(text: "first"))
            context.insert(Violin(serial: 17, label: "old", maker: "Amati"))
            try context.save()
        }
        let container = try open()
        let context = ModelContext(container)
        let item = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        let note = try #require(try context.fetch(FetchDescriptor<Note>()).first)
        let violin = try #require(try context.fetch(FetchDescriptor<Violin>()).first)
        let identifiers = [item.persistentModelID, note.persistentModelID, violin.persistentModelID]
        #expect(item.modelContext === context && note.modelContext === context && violin.modelContext === context)
        #expect(identifiers.map(\.entityName) == ["Item", "Note", "Violin"])
        #expect(Set(identifiers.map(\.storeIdentifier)).count == 1 && identifiers[0].storeIdentifier != nil)
        #expect(!item.hasChanges && !note.hasChanges && !violin.hasChanges && !context.hasChanges)
        let other = ModelContext(container)
        #expect((other.model(for: identifiers[0]) as? Item)?.count == 4)
        #expect((other.model(for: identifiers[1]) as? Note)?.text == "first")
        #expect((other.model(for: identifiers[2]) as? Violin).map { [$0.maker, $0.label] } == ["Amati", "old"])
        note.text = "second"
        violin.label = "restored"
        try context.save()
        let reopened = ModelContext(try open())
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["second"])
        #expect(try reopened.fetch(FetchDescriptor<Violin>()).map(\.label) == ["restored"])
    }

    /// A first fetch of models whose rows hold keys of other models: of the same entity (a folder's
    /// parent, found while the fetch runs) and of another (an outing's journey). Each row's
    /// related model is the one object the context has for that row.
    @Test(arguments: Backend.allCases) func aFirstFetchRelatesEachRowToTheOneObjectOfItsRelatedRow(_ backend: Backend) throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Folder.self, Journey.self, backend: backend))
            var parent: Folder?
            for index in 0..<60 {
                let folder = Folder(name: String(format: "f%02d", index), parent: parent)
                context.insert(folder)
                parent = folder
            }
            let journey = Journey(name: "j", startDate: .now)
            context.insert(journey)
            for index in 0..<40 { journey.outings.append(Outing(title: "o\(index)", cost: index)) }
            try context.save()
        }
        let context = ModelContext(try store.container(Folder.self, Journey.self, backend: backend))
        let folders = try context.fetch(FetchDescriptor<Folder>(sortBy: [SortDescriptor(\.name)]))
        #expect(folders.count == 60)
        #expect(folders.first?.parent == nil)
        #expect(zip(folders.dropFirst(), folders).allSatisfy { $0.parent === $1 })
        #expect(try context.fetch(FetchDescriptor<Folder>(predicate: #Predicate { $0.name == "f30" })).first === folders[30])
        let outings = try context.fetch(FetchDescriptor<Outing>(sortBy: [SortDescriptor(\.cost)]))
        let journey = try #require(try context.fetch(FetchDescriptor<Journey>()).first)
        #expect(outings.count == 40 && outings.allSatisfy { $0.journey === journey })
        #expect(Set(journey.outings.map(ObjectIdentifier.init)) == Set(outings.map(ObjectIdentifier.init)))
    }

    /// A save that deletes the newest row and inserts another: SQLite may give the new row the
    /// deleted one's key, and the context must keep the new model as that row's object (it once
    /// forgot it, or took it for the deleted one).
    @Test(arguments: Backend.allCases, [false, true])
    func aNewRowSavedWithTheDeletionOfTheNewestIsItsModel(_ backend: Backend, byPredicate: Bool) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        let old = makeItem(1)
        context.insert(old)
        try context.save()
        let new = makeItem(2)
        context.insert(new)
        if byPredicate {
            try context.delete(model: Item.self, where: #Predicate { $0.count == 1 })
        } else {
            context.delete(old)
        }
        try context.save()
        #expect(new.modelContext === context && !new.isDeleted)
        let fetched = try context.fetch(FetchDescriptor<Item>())
        #expect(fetched.count == 1 && fetched.first === new)
        new.count = 3
        try context.save()
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Item>()).map(\.count) == [3])
    }

    /// An identifier names one model for the store's whole life, as in SwiftData: a row inserted
    /// after the newest ones were deleted (one by one, by predicate, or by erasing the container),
    /// even after reopening, never gets a deleted row's key.
    @Test(arguments: Backend.allCases, ["one by one", "by predicate", "erase"])
    func aDeletedModelsIdentifierIsNeverHandedOutAgain(_ backend: Backend, deletion: String) throws {
        let store = TemporaryStore()
        var container = try store.container(Item.self, backend: backend)
        var context = ModelContext(container)
        let items = (1...3).map(makeItem)
        for item in items { context.insert(item) }
        try context.save()
        let deletedIDs = items.dropFirst().map(\.persistentModelID)
        switch deletion {
        case "one by one": for item in items.dropFirst() { context.delete(item) }
        case "by predicate": try context.delete(model: Item.self, where: #Predicate { $0.count > 1 })
        default: try container.erase()
        }
        try context.save()
        // Reopened: the floor is in the file.
        container = try store.container(Item.self, backend: backend)
        context = ModelContext(container)
        let later = (4...6).map(makeItem)
        for item in later { context.insert(item) }
        try context.save()
        let laterIDs = Set(later.map(\.persistentModelID))
        #expect(laterIDs.isDisjoint(with: deletedIDs), "a new row took a deleted row's identifier")
        #expect(deletedIDs.allSatisfy { context.registeredModel(for: $0) as Item? == nil })
        let fresh = ModelContext(try store.container(Item.self, backend: backend))
        #expect(Set(try fresh.fetch(FetchDescriptor<Item>()).map(\.persistentModelID)).isSuperset(of: laterIDs))
    }

    /// The same for a save that inserts models of several entities, in runs of one and in turns:
    /// each table's first new row is checked against what its deletions freed, whichever entity
    /// the save wrote first.
    @Test(arguments: Backend.allCases, [false, true])
    func aSaveOfSeveralEntitiesHandsOutNoDeletedIdentifier(_ backend: Backend, photosFirst: Bool) throws {
        func photo(_ index: Int) -> Photo { Photo(title: "photo \(index)", pixels: Data([UInt8(index)])) }
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, Photo.self, backend: backend))
        let items = (1...3).map(makeItem)
        let photos = (1...3).map(photo)
        for (item, photo) in zip(items, photos) {
            context.insert(item)
            context.insert(photo)
        }
        try context.save()
        let deletedIDs = Set(items.dropFirst().map(\.persistentModelID) + photos.dropFirst().map(\.persistentModelID))
        for item in items.dropFirst() { context.delete(item) }
        for photo in photos.dropFirst() { context.delete(photo) }
        try context.save()
        // In turns, then a run of each: the second entity's first row comes after the first's.
        var later: [any PersistentModel] = []
        for index in 4...6 {
            later += photosFirst ? [photo(index), makeItem(index)] : [makeItem(index), photo(index)]
        }
        later += (7...9).map(makeItem) as [any PersistentModel]
        later += (7...9).map(photo) as [any PersistentModel]
        for model in later { context.insert(model) }
        try context.save()
        let laterIDs = Set(later.map(\.persistentModelID))
        #expect(laterIDs.count == later.count)
        #expect(laterIDs.isDisjoint(with: deletedIDs), "a new row took a deleted row's identifier")
        let fresh = ModelContext(try store.container(Item.self, Photo.self, backend: backend))
        let stored = Set(try fresh.fetchIdentifiers(FetchDescriptor<Item>()) + fresh.fetchIdentifiers(FetchDescriptor<Photo>()))
        #expect(stored == laterIDs.union([items[0].persistentModelID, photos[0].persistentModelID]))
    }

    @Test(arguments: Backend.allCases) func unsavedChangesSurviveARefetch(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        context.insert(makeItem(1))
        try context.save()
        let item = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        item.name = "renamed"
        let again = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        #expect(again.name == "renamed")
    }

    @Test(arguments: Backend.allCases) func identifiersAreStableAcrossSavesAndUsableInAnotherContext(_ backend: Backend) throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self, backend: backend)
        let context = ModelContext(container)
        let item = makeItem(5)
        context.insert(item)
        try context.save()
        let id = item.persistentModelID
        item.count = 50
        try context.save()
        #expect(item.persistentModelID == id)
        #expect(item.id == id)

        let other = ModelContext(container)
        #expect(other.registeredModel(for: id) as Item? == nil)
        let resolved = try #require(other.model(for: id) as? Item)
        #expect(resolved !== item)
        #expect(resolved.count == 50)
        #expect(resolved.persistentModelID == id)
        #expect(other.registeredModel(for: id) as Item? === resolved)

        let reopened = ModelContext(try store.container(Item.self, backend: backend))
        let afterReopen = try #require(reopened.model(for: id) as? Item)
        #expect(afterReopen.name == "item 5")
    }

    @Test(arguments: Backend.allCases) func identifiersRoundTripThroughCodable(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        let item = makeItem(3)
        context.insert(item)
        try context.save()
        let data = try JSONEncoder().encode(item.persistentModelID)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        #expect(decoded == item.persistentModelID)
        #expect(decoded.hashValue == item.persistentModelID.hashValue)
        #expect(decoded.entityName == "Item")
    }

    @Test(arguments: Backend.allCases) func fetchIdentifiersMatchesFetch(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        for index in 0..<20 { context.insert(makeItem(index)) }
        try context.save()
        let descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.flag }, sortBy: [SortDescriptor(\.count, order: .reverse)])
        #expect(try context.fetchIdentifiers(descriptor) == context.fetch(descriptor).map(\.persistentModelID))
    }

    @Test(arguments: Backend.allCases) func modelsResolvedFromIdentifiersShowStoredValuesNotDefaults(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, Item.self, backend: backend))
        let note = Note(text: "dated")
        note.created = Date(timeIntervalSinceReferenceDate: 12345)
        let item = makeItem(8)
        context.insert(note)
        context.insert(item)
        try context.save()

        let reopened = ModelContext(try store.container(Note.self, Item.self, backend: backend))
        let resolvedNote = try #require(reopened.model(for: note.persistentModelID) as? Note)
        #expect(resolvedNote.created == Date(timeIntervalSinceReferenceDate: 12345), "not the declared default")
        let resolvedItem = try #require(reopened.model(for: item.persistentModelID) as? Item)
        resolvedItem.count = 80
        #expect(resolvedItem.note == "note 8", "not an optional's implicit nil")
        #expect(resolvedItem.count == 80, "a value set before the row loaded is kept")
        #expect(resolvedItem.name == "item 8")
    }

    /// Identifiers of one row are equal and hash alike however they were made (by two contexts,
    /// by `fetchIdentifiers`, a save notification's list, decoding), after reopening too; those
    /// of other rows, entities or stores are not.
    @Test func identifiersOfOneRowAreEqualHoweverTheyWereMade() throws {
        let store = TemporaryStore()
        var ids: [PersistentIdentifier] = []
        do {
            let container = try store.container(Item.self, Person.self)
            let context = ModelContext(container)
            let item = makeItem(1)
            context.insert(item)
            context.insert(makeItem(2))
            context.insert(Person(email: "a@example.com", givenName: "A", familyName: "B"))
            try context.save()
            ids.append(item.persistentModelID)
            let other = ModelContext(container)
            ids.append(try #require(try other.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 1 })).first).persistentModelID)
            ids.append(try #require(try other.fetchIdentifiers(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 1 })).first))
            ids.append(try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(item.persistentModelID)))
            let person = try #require(try other.fetch(FetchDescriptor<Person>()).first)
            let second = try #require(try other.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 2 })).first)
            #expect(!ids.contains(person.persistentModelID), "another entity")
            #expect(!ids.contains(second.persistentModelID), "another row")
        }
        let reopened = ModelContext(try store.container(Item.self, Person.self))
        ids.append(try #require(try reopened.fetchIdentifiers(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 1 })).first))
        let elsewhere = TemporaryStore(name: "Other.store")
        let otherStore = ModelContext(try elsewhere.container(Item.self, Person.self))
        otherStore.insert(makeItem(1))
        try otherStore.save()
        let sameKeyOtherStore = try #require(try otherStore.fetchIdentifiers(FetchDescriptor<Item>()).first)
        #expect(sameKeyOtherStore.entityName == ids[0].entityName && sameKeyOtherStore.id == ids[0].id)
        #expect(sameKeyOtherStore != ids[0], "the same entity and key in another store")
        for id in ids {
            #expect(id == ids[0])
            #expect(id.hashValue == ids[0].hashValue)
            #expect(id.storeIdentifier == ids[0].storeIdentifier && id.entityName == "Item")
        }
        #expect(Set(ids).count == 1)
        #expect(Set(ids + [sameKeyOtherStore]).count == 2)
        #expect(Dictionary(uniqueKeysWithValues: [(ids[0], "found")])[ids.last!] == "found")
        let printed = String(describing: ids[0])
        #expect(printed.contains("entityName: \"Item\"") && printed.contains("id: p1"), "printed as \(printed)")
    }
}
