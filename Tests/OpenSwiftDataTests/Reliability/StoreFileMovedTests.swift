import Foundation
import Testing
@testable import OpenSwiftData

/// The store file is moved or deleted by someone else while a container has it open. SQLite would
/// go on committing to the file it holds, which the next container on the path never sees, so each
/// write refuses to commit: the save throws, the context keeps its changes, and once the file is
/// back the same save succeeds.
@Suite struct StoreFileMovedTests {
    private static func item(_ number: Int) -> Item {
        Item(name: "item \(number)", note: nil, count: number, optionalCount: nil, score: 0, optionalScore: nil, flag: false,
             date: Date(timeIntervalSinceReferenceDate: 0), price: 0, big: 0, code: UUID(), mood: .calm)
    }

    private static func move(_ store: TemporaryStore, to path: String) throws {
        try FileManager.default.moveItem(atPath: store.url.path, toPath: path)
    }

    @Test func aSaveToAMovedFileThrowsAndSucceedsOnceTheFileIsBack() throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self, backend: .sqlite)
        let context = ModelContext(container)
        context.insert(Self.item(1))
        try context.save()

        let elsewhere = store.folder.appendingPathComponent("Moved.store").path
        try Self.move(store, to: elsewhere)
        context.insert(Self.item(2))
        let error = #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
        #expect(error?.reason?.contains("moved or deleted") == true)
        #expect(context.hasChanges && context.insertedModelsArray.count == 1, "the context keeps the unsaved insert")

        try FileManager.default.moveItem(atPath: elsewhere, toPath: store.url.path)
        try context.save()
        let reopened = ModelContext(try store.container(Item.self, backend: .sqlite))
        #expect(try reopened.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.count)])).map(\.count) == [1, 2])
    }

    @Test func aSaveAfterTheFileIsDeletedThrowsInsteadOfVanishing() throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self, backend: .sqlite)
        let context = ModelContext(container)
        context.insert(Self.item(1))
        try context.save()

        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.url.path + suffix) }
        context.insert(Self.item(2))
        #expect(throws: SwiftDataError.storeUnavailable) { try context.save() }
        #expect(throws: SwiftDataError.storeUnavailable) { try container.erase() }
        #expect(context.hasChanges && context.insertedModelsArray.count == 1)
    }

    @Test func historyDeletionOnAMovedFileThrowsAndKeepsTheHistory() throws {
        let store = TemporaryStore()
        let container = try store.container(Item.self, backend: .sqlite)
        let context = ModelContext(container)
        context.insert(Self.item(1))
        try context.save()

        let elsewhere = store.folder.appendingPathComponent("Moved.store").path
        try Self.move(store, to: elsewhere)
        #expect(throws: SwiftDataError.storeUnavailable) {
            try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        }
        try FileManager.default.moveItem(atPath: elsewhere, toPath: store.url.path)
        let reopened = ModelContext(try store.container(Item.self, backend: .sqlite))
        #expect(try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }
}
