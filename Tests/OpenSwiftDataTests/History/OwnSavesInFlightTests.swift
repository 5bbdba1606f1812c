import Foundation
import Testing
@testable import OpenSwiftData

/// Saves of one container that share a trip to the server finish in any order: a save whose
/// history number leaves a gap waits for the container's other saves in flight instead of
/// reading the history, and the last of them reads it, finding what other containers saved in
/// the gap. (The container's position in the history is what `ExternalSaves` keeps; what it read
/// shows in the save log, which gets one entry per save of others.)
@Suite struct OwnSavesInFlightTests {
    /// A store file, a container on it, and the number of its latest history transaction.
    private func containerAfterSeed() throws -> (ModelContainer, Int64, TemporaryStore) {
        let store = TemporaryStore()
        let seeded = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: store.url))
        let seed = ModelContext(seeded)
        seed.insert(Note(text: "seed"))
        try seed.save()
        let mine = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: store.url))
        return (mine, try mine.stores[0].latestHistoryTransaction(), store)
    }

    /// Another container's save, committed to the same file.
    private func saveElsewhere(_ store: TemporaryStore) throws {
        let other = ModelContext(try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: store.url)))
        other.insert(Note(text: "elsewhere"))
        try other.save()
    }

    @Test func aGapWaitsForTheSavesInFlightAndTheLastReadsIt() throws {
        let (mine, last, store) = try containerAfterSeed()
        try saveElsewhere(store)   // transaction last + 1
        let external = mine.externalSaves
        let log = mine.saveLog
        func note(_ id: Int64) throws -> Bool {
            try external.noteOwnTransaction(id, inStoreAt: 0, into: log, stores: mine.stores, source: ObjectIdentifier(external))
        }
        external.beginOwnSave(inStoreAt: 0)
        external.beginOwnSave(inStoreAt: 0)
        // Transactions last + 2 and last + 3 are this container's (as the trip numbered them).
        #expect(try note(last + 3) == false)
        #expect(log.latestGeneration == 0, "the history was not read while a save of the container is in flight")
        #expect(try note(last + 2) == true, "the last save reads the gap and finds the other container's save")
        #expect(log.latestGeneration == 1)
        // The position moved past this container's own transactions: the next follows directly.
        external.beginOwnSave(inStoreAt: 0)
        #expect(try note(last + 4) == false)
        #expect(log.latestGeneration == 1)
    }

    @Test func aGapNoSaveInFlightCanFillIsReadAtOnce() throws {
        let (mine, last, store) = try containerAfterSeed()
        try saveElsewhere(store)
        let external = mine.externalSaves
        external.beginOwnSave(inStoreAt: 0)
        external.beginOwnSave(inStoreAt: 0)
        external.endOwnSave(inStoreAt: 0)   // a save that failed
        #expect(try external.noteOwnTransaction(last + 2, inStoreAt: 0, into: mine.saveLog, stores: mine.stores, source: ObjectIdentifier(external)))
        #expect(mine.saveLog.latestGeneration == 1)
    }

    @Test func manyTransactionsPastAGapReadItEvenWithSavesInFlight() throws {
        let (mine, last, store) = try containerAfterSeed()
        try saveElsewhere(store)
        let external = mine.externalSaves
        let waiting = ExternalSaves.largestOwnAhead + 1
        for _ in 0...waiting { external.beginOwnSave(inStoreAt: 0) }
        var found: [Bool] = []
        for offset in 0..<Int64(waiting) {
            found.append(try external.noteOwnTransaction(last + 3 + offset, inStoreAt: 0, into: mine.saveLog, stores: mine.stores, source: ObjectIdentifier(external)))
        }
        #expect(found.dropLast().allSatisfy { !$0 }, "up to the bound, the transactions wait")
        #expect(found.last == true, "past it, the history is read")
        #expect(mine.saveLog.latestGeneration == 1)
    }

    /// Concurrent saves of one container, each through its own context, all land, and a context
    /// of the container then reads every one and the other container's save.
    @Test func concurrentSavesOfOneContainerAllMerge() async throws {
        let (mine, _, store) = try containerAfterSeed()
        try saveElsewhere(store)
        let failures = await withTaskGroup(of: (any Error)?.self) { group in
            for number in 0..<16 {
                group.addTask {
                    let context = ModelContext(mine)
                    context.insert(Note(text: "concurrent \(number)"))
                    do {
                        try context.save()
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.compactMap { $0 }.reduce(into: [String]()) { $0.append("\($1)") }
        }
        #expect(failures.isEmpty)
        let texts = try ModelContext(mine).fetch(FetchDescriptor<Note>()).map(\.text)
        #expect(texts.count == 18 && texts.contains("elsewhere") && texts.contains("seed"))
        #expect(Set(texts.filter { $0.hasPrefix("concurrent") }).count == 16)
    }
}
