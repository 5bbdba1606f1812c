import Foundation
import Testing
@testable import OpenSwiftData

/// `ModelContainer.close()`: a server's shutdown, or a store file to move, without waiting for
/// every context and model to let the container go.
@Suite struct ContainerCloseTests {
    @Test(arguments: Backend.allCases)
    func aClosedContainerRefusesCallsLosesNothingAndClosesOnce(_ backend: Backend) throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self, backend: backend)
        let context = ModelContext(container)
        context.insert(Note(text: "kept"))
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Note>()) == 1, "a reader connection is open and back in its pool")

        container.close()
        container.close()   // does nothing the second time

        if backend != .dataStore {   // a custom store holds what it opened itself
            #expect(throws: SwiftDataError.storeUnavailable) { try ModelContext(container).fetch(FetchDescriptor<Note>()) }
            #expect(throws: SwiftDataError.storeUnavailable) { try reader.fetchCount(FetchDescriptor<Note>()) }
            context.insert(Note(text: "after close"))
            #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
            #expect(context.hasChanges, "a refused save keeps its changes")
        }
        if backend == .sqlite {
            // The last connection's close folds the write-ahead log into the file and removes it.
            #expect(!FileManager.default.fileExists(atPath: store.url.path + "-wal"))
        }

        let reopened = ModelContext(try store.container(Note.self, backend: backend))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["kept"])
    }

    @Test func closingAContainerLetsItsModelsBeRead() throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        let context = ModelContext(container)
        let note = Note(text: "loaded")
        context.insert(note)
        try context.save()
        container.close()
        #expect(note.text == "loaded", "a loaded value stays readable")
        #expect(note.persistentModelID.storeIdentifier != nil)
    }
}
