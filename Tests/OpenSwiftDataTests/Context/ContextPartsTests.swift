import Foundation
import Testing
@testable import OpenSwiftData

/// The parts a `ModelContext` is made of, each on its own.
@Suite struct ContextPartsTests {
    private struct Failure: Error, Equatable { let number: Int }

    @Test func theChangeTrackerHasChangesOnlyForWhatASaveWouldWrite() throws {
        var tracker = ChangeTracker()
        #expect(!tracker.hasChanges)
        let note = Note(text: "a")
        tracker.changed.append(note)
        #expect(!tracker.hasChanges, "a model listed as changed with no property set since the save writes nothing")
        note._osdState.changedProperties = 1
        #expect(tracker.hasChanges)
        tracker.removeAll()
        #expect(!tracker.hasChanges)

        tracker.deleted.append(Note(text: "b"))
        tracker.propagatedDeletions = 1
        #expect(tracker.hasChanges)
        tracker.removeAll()
        #expect(tracker.deleted.isEmpty && tracker.propagatedDeletions == 0)

        let schema = Schema([Note.self])
        let entity = try #require(schema.entitiesByName["Note"])
        tracker.inserted.append((entity, Note(text: "c")))
        #expect(tracker.hasChanges)
    }

    @Test func theIdentityMapKeepsOneMapPerEntityAndOneModelPerKey() throws {
        let schema = Schema([Note.self, Item.self])
        let note = try #require(schema.entitiesByName["Note"]), item = try #require(schema.entitiesByName["Item"])
        var map = IdentityMap()
        #expect(map.holdsNoModels)
        let notes = map.models(of: note)
        #expect(map.models(of: note) === notes, "made once")
        #expect(map.models(of: item) !== notes)
        #expect(map.holdsNoModels, "maps made for entities hold nothing yet")
        let model = Note(text: "kept")
        notes.insert(model, forKey: 7)
        #expect(!map.holdsNoModels)
        #expect(map.model(entityName: "Note", key: 7) === model)
        #expect(map.model(entityName: "Note", key: 8) == nil)
        #expect(map.model(entityName: "Item", key: 7) == nil)

        var weak = IdentityMap()
        weak.holdsWeakly = true
        let held = weak.models(of: note)
        do {
            let transient = Note(text: "gone")
            held.insert(transient, forKey: 1)
            #expect(weak.model(entityName: "Note", key: 1) === transient)
        }
        #expect(weak.model(entityName: "Note", key: 1) == nil, "a stand-in context's map does not keep its models alive")
    }

    /// The save log tells a context with no models whether others saved since it looked,
    /// without the entries: its own saves do not count, saves the log no longer keeps do.
    @Test func theSaveLogTellsWhetherOthersSaved() {
        let log = SaveLog()
        let mine = ObjectIdentifier(Note.self), theirs = ObjectIdentifier(Item.self)
        let none = ModelContext.SavedChanges(insertedIdentifiers: [], updatedIdentifiers: [], deletedIdentifiers: [])
        #expect(log.othersSaved(after: 0, excluding: mine) == (false, 0))
        log.record(none, from: mine)
        #expect(log.othersSaved(after: 0, excluding: mine) == (false, 1))
        log.record(none, from: theirs)
        #expect(log.othersSaved(after: 0, excluding: mine) == (true, 2))
        #expect(log.othersSaved(after: 1, excluding: mine) == (true, 2))
        #expect(log.othersSaved(after: 2, excluding: mine) == (false, 2))
        for _ in 0..<(2 * SaveLog.capacity) { log.record(none, from: mine) }
        let latest = UInt64(2 + 2 * SaveLog.capacity)
        #expect(log.othersSaved(after: 2, excluding: mine) == (true, latest), "some saves are no longer kept")
        #expect(log.othersSaved(after: latest - 1, excluding: mine) == (false, latest))
        #expect(log.saves(after: 2, excluding: mine).entries == nil, "as the detailed answer says")
    }

    /// The `didSave` userInfo is one dictionary whose values each save replaces: a copy handed
    /// out before keeps its values, and clearing lets go of the identifiers.
    @Test func theDidSaveUserInfoIsReusedAndCopiedOnWrite() {
        var info = DidSaveUserInfo()
        let one = PersistentIdentifier(location: _ModelLocation(entityName: "Note", storeIdentifier: "s"), key: .permanent(1))
        let two = PersistentIdentifier(location: _ModelLocation(entityName: "Note", storeIdentifier: "s"), key: .permanent(2))
        let first = info.filled(with: .init(insertedIdentifiers: [one], updatedIdentifiers: [], deletedIdentifiers: [two]))
        info.clear()
        let second = info.filled(with: .init(insertedIdentifiers: [], updatedIdentifiers: [two], deletedIdentifiers: []))
        func value(_ dictionary: [AnyHashable: Any], _ key: ModelContext.NotificationKey) -> [PersistentIdentifier]? {
            dictionary[key.rawValue] as? [PersistentIdentifier]
        }
        #expect(value(first, .insertedIdentifiers) == [one] && value(first, .updatedIdentifiers) == [] && value(first, .deletedIdentifiers) == [two])
        #expect(value(second, .insertedIdentifiers) == [] && value(second, .updatedIdentifiers) == [two] && value(second, .deletedIdentifiers) == [])
        info.clear()
        let cleared = info.filled(with: .init(insertedIdentifiers: [], updatedIdentifiers: [], deletedIdentifiers: []))
        #expect(cleared.count == 3 && value(cleared, .updatedIdentifiers) == [])
        #expect(value(second, .updatedIdentifiers) == [two], "clearing leaves a copy handed out before as it was")
    }

    @Test func deferredFailuresKeepTheFirstOfEachKind() {
        var failures = DeferredFailures()
        failures.deferRead(Failure(number: 1))
        failures.deferRead(Failure(number: 2))
        failures.refuseInsert(Failure(number: 3))
        failures.refuseInsert(Failure(number: 4))
        #expect(failures.readFailure as? Failure == Failure(number: 1))
        #expect(failures.refusedInsert as? Failure == Failure(number: 3))
        #expect(failures.crossContextRelationship == nil)
    }

    @Test func aContextIsItsPartsAndForwardsSwiftDataSettingsToThem() throws {
        let store = TemporaryStore()
        let context = ModelContext(try ModelContainer(for: Schema([Note.self]), configurations: [store.configuration()]))
        context.author = "importer"
        context.autosaveEnabled = true
        #expect(context.saving.author == "importer" && context.autosave.isEnabled)
        let state = context.editingState
        #expect(state.author == "importer" && context.editingState.id == state.id, "the editing state is made once")
        context.insert(Note(text: "n"))
        #expect(context.tracker.inserted.count == 1 && context.hasChanges)
        try context.save()
        #expect(!context.hasChanges && context.tracker.inserted.isEmpty)
        #expect(context.identityMap.registry["Note"]?.models.count == 1)
        #expect(context.merging.saveGeneration == 1)
    }
}
