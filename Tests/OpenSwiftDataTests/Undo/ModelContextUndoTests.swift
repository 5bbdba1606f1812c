import Foundation
import Testing
@testable import OpenSwiftData

/// A context with an undo manager registers how to revert each insertion, deletion and change,
/// as SwiftData's does ("Reverting data changes using the undo manager"), before and after saves.
struct ModelContextUndoTests {
    let store = TemporaryStore()

    /// A context of a new container on the store, with an undo manager.
    func undoableContext() throws -> (ModelContext, UndoManager) {
        let context = ModelContext(try store.graphContainer())
        let manager = UndoManager()
        context.undoManager = manager
        return (context, manager)
    }

    /// The journeys a fresh context reads from the store, by name, with their outings' titles.
    func stored() throws -> [String: Set<String>] {
        let fresh = ModelContext(try store.graphContainer())
        var result: [String: Set<String>] = [:]
        for journey in try fresh.fetch(FetchDescriptor<Journey>()) { result[journey.name] = Set(journey.outings.map(\.title)) }
        return result
    }

    /// A saved outing "Museum" costing 10, in an undoable context with nothing to undo yet.
    func savedOuting() throws -> (ModelContext, UndoManager, Outing) {
        let (context, manager) = try undoableContext()
        let outing = Outing(title: "Museum", cost: 10)
        context.insert(outing)
        try context.save()
        manager.removeAllActions()
        return (context, manager, outing)
    }

    /// The costs of the outings a fresh context reads from the store.
    func storedCosts() throws -> [Int] {
        try ModelContext(try store.graphContainer()).fetch(FetchDescriptor<Outing>()).map(\.cost)
    }

    @Test func undoTakesAnInsertionBackAndRedoMakesItAgain() throws {
        let (context, manager) = try undoableContext()
        let journey = Journey(name: "Rome")
        context.insert(journey)
        #expect(manager.canUndo)
        manager.undo()
        #expect(journey.modelContext == nil)
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty)
        #expect(try context.fetch(FetchDescriptor<Journey>()).isEmpty)
        manager.redo()
        #expect(journey.modelContext === context && context.insertedModelsArray.count == 1)
        try context.save()
        #expect(try stored() == ["Rome": []])
    }

    @Test func undoRevertsAttributeChangesAndLeavesNoChangesBehind() throws {
        let (context, manager, outing) = try savedOuting()

        outing.cost = 20
        outing.cost = 30
        outing.title = "Gallery"
        #expect(context.hasChanges)
        manager.undo()
        #expect(outing.cost == 10 && outing.title == "Museum")
        #expect(!context.hasChanges, "back to the saved values: nothing left to save")
        #expect(context.changedModelsArray.isEmpty)
        manager.redo()
        #expect(outing.cost == 30 && outing.title == "Gallery" && context.hasChanges)
        try context.save()
        #expect(try storedCosts() == [30])
    }

    @Test func undoingASavedChangeMakesTheOldValueAChangeToSave() throws {
        let (context, manager, outing) = try savedOuting()
        outing.cost = 99
        try context.save()
        manager.undo()
        #expect(outing.cost == 10)
        #expect(context.hasChanges, "the store holds 99: the restored 10 is a change to save")
        try context.save()
        #expect(try storedCosts() == [10])
    }

    @Test func undoingAChangeAfterAnotherContextSavedTheRowRestoresItAsAChange() throws {
        let (context, manager, outing) = try savedOuting()
        outing.cost = 20

        let other = ModelContext(context.container)
        try #require(try other.fetch(FetchDescriptor<Outing>()).first).cost = 30
        try other.save()
        _ = try context.fetch(FetchDescriptor<Outing>())
        manager.undo()
        #expect(outing.cost == 10)
        #expect(context.hasChanges, "the store holds the other context's 30: the restored 10 is a change to save")
        try context.save()
        #expect(try storedCosts() == [10])
    }

    @Test func undoingASavedInsertionDeletesTheModel() throws {
        let (context, manager) = try undoableContext()
        context.insert(Journey(name: "Oslo"))
        try context.save()
        #expect(try stored() == ["Oslo": []])
        manager.undo()
        #expect(context.deletedModelsArray.count == 1)
        try context.save()
        #expect(try stored().isEmpty)
    }

    @Test func undoingASavedDeletionRestoresTheModelItsCascadeAndTheirRelationships() throws {
        let (context, manager) = try undoableContext()
        let journey = Journey(name: "Kyoto")
        journey.outings = [Outing(title: "Temple"), Outing(title: "Garden")]
        let lodging = Lodging(name: "Ryokan")
        journey.lodging = lodging
        context.insert(journey)
        try context.save()
        manager.removeAllActions()

        context.delete(journey)
        try context.save()
        #expect(try stored().isEmpty, "the cascade deleted the outings too")
        #expect(journey.modelContext == nil)

        manager.undo()
        #expect(journey.modelContext === context && !journey.isDeleted)
        #expect(Set(journey.outings.map(\.title)) == ["Temple", "Garden"])
        #expect(journey.outings.allSatisfy { $0.journey === journey && $0.modelContext === context })
        #expect(journey.lodging === lodging && lodging.journey === journey)
        try context.save()
        #expect(try stored() == ["Kyoto": ["Temple", "Garden"]])
        let fresh = ModelContext(try store.graphContainer())
        #expect(try fresh.fetch(FetchDescriptor<Lodging>()).first?.journey?.name == "Kyoto")

        manager.redo()
        try context.save()
        #expect(try stored().isEmpty, "redo deleted them again")
    }

    @Test func undoingASavedDeletionPutsTheModelBackIntoOneWayRelationships() throws {
        let (context, manager) = try undoableContext()
        let memo = Memo(text: "Trip plan")
        let map = Attachment(fileName: "map.pdf")
        let tickets = Attachment(fileName: "tickets.pdf")
        memo.attachments = [map, tickets]
        memo.pinned = tickets
        context.insert(memo)
        try context.save()
        manager.removeAllActions()

        context.delete(tickets)
        try context.save()
        #expect(memo.attachments.map(\.fileName) == ["map.pdf"] && memo.pinned == nil, "the save let go of the deleted row")
        manager.undo()
        #expect(Set(memo.attachments.map(\.fileName)) == ["map.pdf", "tickets.pdf"])
        #expect(memo.pinned === tickets)
        try context.save()
        let fresh = try #require(try ModelContext(try store.graphContainer()).fetch(FetchDescriptor<Memo>()).first)
        #expect(Set(fresh.attachments.map(\.fileName)) == ["map.pdf", "tickets.pdf"] && fresh.pinned?.fileName == "tickets.pdf")
    }

    @Test func undoingAPendingDeletionRestoresItsCascadeBeforeAnySave() throws {
        let (context, manager) = try undoableContext()
        let journey = Journey(name: "Lima")
        journey.outings = [Outing(title: "Market")]
        context.insert(journey)
        try context.save()
        manager.removeAllActions()

        context.delete(journey)
        #expect(try context.fetch(FetchDescriptor<Outing>()).isEmpty, "the cascade is pending too")
        manager.undo()
        #expect(!journey.isDeleted && journey.outings.map(\.isDeleted) == [false])
        #expect(!context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Outing>()).map(\.title) == ["Market"])
    }

    @Test func undoRestoresARelationshipAndTheInversesItMoved() throws {
        let (context, manager) = try undoableContext()
        let paris = Journey(name: "Paris")
        let lyon = Journey(name: "Lyon")
        let louvre = Outing(title: "Louvre", journey: paris)
        context.insert(louvre)
        context.insert(lyon)
        try context.save()
        manager.removeAllActions()

        lyon.outings.append(louvre)
        #expect(louvre.journey === lyon && paris.outings.isEmpty)
        manager.undo()
        #expect(louvre.journey === paris && paris.outings.map(\.title) == ["Louvre"] && lyon.outings.isEmpty)
        #expect(!context.hasChanges)
        manager.redo()
        #expect(louvre.journey === lyon && paris.outings.isEmpty && lyon.outings.count == 1)
        try context.save()
        #expect(try stored() == ["Paris": [], "Lyon": ["Louvre"]])
    }

    @Test func aDeletionByPredicateCanBeUndoneAfterItWasSaved() throws {
        let (context, manager) = try undoableContext()
        for name in ["A", "B", "C"] { context.insert(Journey(name: name)) }
        try context.save()
        manager.removeAllActions()
        // A fresh container: the context has loaded none of the journeys.
        let other = ModelContext(try store.graphContainer())
        other.undoManager = manager
        try other.delete(model: Journey.self, where: #Predicate { $0.name != "B" })
        try other.save()
        #expect(try stored() == ["B": []])
        manager.undo()
        try other.save()
        #expect(try stored() == ["A": [], "B": [], "C": []])
    }

    @Test func undoRevertsInheritedAndOwnPropertiesOfASubclass() throws {
        let container = try ModelContainer(for: Schema([Picture.self, Clip.self, Album.self]), configurations: [store.configuration()])
        let context = ModelContext(container)
        let manager = UndoManager()
        context.undoManager = manager
        let album = Album(name: "Summer")
        let picture = Picture(title: "Beach", resolution: 12)
        album.items.append(picture)
        context.insert(album)
        try context.save()
        manager.removeAllActions()

        picture.title = "Dunes"
        picture.resolution = 48
        picture.album = nil
        manager.undo()
        #expect(picture.title == "Beach" && picture.resolution == 12)
        #expect(picture.album === album && album.items.count == 1)
        #expect(!context.hasChanges)
    }

    @Test func aDeletedModelNeverLoadedComesBackWhole() throws {
        let container = try store.container(Photo.self)
        let pixels = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let writer = ModelContext(container)
        writer.insert(Photo(title: "Sunset", pixels: pixels))
        try writer.save()
        let id = try #require(try writer.fetch(FetchDescriptor<Photo>()).first).persistentModelID

        // A context that knows the photo by its identifier only: nothing of it is loaded.
        let context = ModelContext(container)
        let manager = UndoManager()
        context.undoManager = manager
        let photo = try #require(context.model(for: id) as? Photo)
        context.delete(photo)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Photo>()) == 0)
        manager.undo()
        try context.save()
        let restored = try ModelContext(try store.container(Photo.self)).fetch(FetchDescriptor<Photo>())
        #expect(restored.map(\.title) == ["Sunset"])
        #expect(restored.first?.pixels == pixels, "the external-storage value was loaded before the row went")
    }

    @Test @MainActor func theMainContextUndoesWhatItAutosaved() async throws {
        let container = try store.graphContainer()
        let context = container.mainContext
        let manager = UndoManager()
        context.undoManager = manager
        let journey = Journey(name: "Accra")
        journey.outings = [Outing(title: "Beach")]
        context.insert(journey)
        try context.save()
        manager.removeAllActions()

        context.delete(journey)
        // The autosave runs once the main actor's current job ends, as the group closes.
        await waitUntil { !context.hasChanges }
        #expect(try stored().isEmpty && !manager.canRedo)
        #expect(manager.canUndo)
        manager.undo()
        await waitUntil { !context.hasChanges }
        #expect(try stored() == ["Accra": ["Beach"]])
    }

    @Test func rollbackEmptiesTheUndoStack() throws {
        let (context, manager) = try undoableContext()
        context.insert(Journey(name: "Quito"))
        #expect(manager.canUndo)
        context.rollback()
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func aContextWithoutAnUndoManagerRegistersNothing() throws {
        let (context, manager) = try undoableContext()
        context.undoManager = nil
        let journey = Journey(name: "Cairo")
        context.insert(journey)
        journey.name = "Giza"
        context.delete(journey)
        context.undoManager = manager
        #expect(!manager.canUndo)
    }

    @Test func undoIsObservedLikeAnyChange() throws {
        let (context, manager) = try undoableContext()
        let outing = Outing(title: "Zoo", cost: 1)
        context.insert(outing)
        try context.save()
        manager.removeAllActions()
        outing.cost = 2
        let heard = LockedValue(false)
        withObservationTracking { _ = outing.cost } onChange: { heard.store(true) }
        manager.undo()
        #expect(heard.load() && outing.cost == 1)
    }
}
