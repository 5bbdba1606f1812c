import Foundation
import Testing
@testable import OpenSwiftData

/// The store file is moved or deleted by someone else while a container has it open. SQLite would
/// go on committing to the file it holds, which the next container on the path never sees, so each
/// write refuses to commit: the save throws, the context keeps its changes, and once the file is
/// back the same save succeeds.
@Suite struct StoreFileMovedTests {
    static func item(_ number: Int) -> Item {
        Item(name: "item \(number)", note: nil, count: number, optionalCount: nil, score: 0, optionalScore: nil, flag: false,
             date: Date(timeIntervalSinceReferenceDate: 0), price: 0, big: 0, code: UUID(), mood: .calm)
    }

    /// A store with one saved item, a context on it, and the store file moved aside (or deleted).
    private struct MovedStore {
        let store = TemporaryStore()
        let container: ModelContainer
        let context: ModelContext
        var elsewhere: String { store.folder.appendingPathComponent("Moved.store").path }

        init(deleting: Bool = false) throws {
            container = try store.container(Item.self, backend: .sqlite)
            context = ModelContext(container)
            context.insert(StoreFileMovedTests.item(1))
            try context.save()
            if deleting {
                for suffix in ["", "-wal", "-shm"] { try FileManager.default.removeItem(atPath: store.url.path + suffix) }
            } else {
                try FileManager.default.moveItem(atPath: store.url.path, toPath: elsewhere)
            }
        }

        /// Puts the moved file back, and opens a context of a new container on it.
        func movedBack() throws -> ModelContext {
            try FileManager.default.moveItem(atPath: elsewhere, toPath: store.url.path)
            return ModelContext(try store.container(Item.self, backend: .sqlite))
        }
    }

    @Test func aSaveToAMovedFileThrowsAndSucceedsOnceTheFileIsBack() throws {
        let moved = try MovedStore()
        let context = moved.context
        context.insert(Self.item(2))
        let error = #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
        #expect(error?.reason?.contains("moved or deleted") == true)
        #expect(context.hasChanges && context.insertedModelsArray.count == 1, "the context keeps the unsaved insert")

        let reopened = try moved.movedBack()
        try context.save()
        #expect(try reopened.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.count)])).map(\.count) == [1, 2])
    }

    @Test func aSaveAfterTheFileIsDeletedThrowsInsteadOfVanishing() throws {
        let deleted = try MovedStore(deleting: true)
        let context = deleted.context
        context.insert(Self.item(2))
        #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
        #expect(throws: SwiftDataError.storeUnavailable) { try deleted.container.erase() }
        #expect(context.hasChanges && context.insertedModelsArray.count == 1)
    }

    @Test func historyDeletionOnAMovedFileThrowsAndKeepsTheHistory() throws {
        let moved = try MovedStore()
        #expect(throws: SwiftDataError.storeUnavailable) {
            try moved.context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        }
        let reopened = try moved.movedBack()
        #expect(try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }
}
