import Foundation
import Observation
import PredicateFuzzing
import Testing
@testable import OpenSwiftData

/// Saves another process makes to the same file: merged into this process's contexts and shown
/// in its history, including the main context by itself; a writer killed mid-save leaves whole
/// transactions only.
@Suite struct OtherProcessTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self]), configurations: [store.configuration()])
    }

    /// Runs the helper executable that `swift build` puts beside the test bundle.
    func helper(_ action: String) throws -> Process {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("HistoryWriter")
        #expect(FileManager.default.isExecutableFile(atPath: binary.path), "the HistoryWriter helper is built with the tests")
        let process = Process()
        process.executableURL = binary
        process.arguments = [store.helperArgument, action]
        process.standardOutput = Pipe()
        try process.run()
        return process
    }

    func seed() throws -> ModelContext {
        let context = ModelContext(try container())
        context.insert(FuzzOwner(name: "first", rank: 1))
        context.insert(FuzzOwner(name: "doomed", rank: 0))
        try context.save()
        return context
    }

    @Test func anotherProcessSaveIsMergedAndInTheHistory() throws {
        _ = try seed()
        let context = ModelContext(try container())
        let owners = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)]))
        let first = try #require(owners.first { $0.name == "first" })
        let doomed = try #require(owners.first { $0.name == "doomed" })
        #expect(first.rank == 1)

        let process = try helper("edit")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let after = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)]))
        #expect(after.map(\.name) == ["first", "second"])
        #expect(first.rank == 99, "the registered model took the other process's value")
        #expect(doomed.isDeleted)

        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let last = try #require(history.last)
        #expect(history.count == 2)
        #expect(last.author == "helper")
        #expect(last.processIdentifier == String(process.processIdentifier))
        #expect(last.processIdentifier != String(ProcessInfo.processInfo.processIdentifier))
        #expect(last.changes.map(\.changedPersistentIdentifier.entityName) == ["FuzzOwner", "FuzzOwner", "FuzzOwner"])
        #expect(last.changes.contains { if case .delete = $0 { $0.changedPersistentIdentifier == doomed.persistentModelID } else { false } })
    }

    @Test func anotherContainerOnTheSameFileIsMergedAndItsOwnSavesAreNot() throws {
        _ = try seed()
        let mine = try container()
        let context = ModelContext(mine)
        let first = try #require(try context.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name == "first" })).first)
        let other = ModelContext(try container())
        let copy = try #require(try other.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name == "first" })).first)
        copy.rank = 7
        try other.save()
        let before = mine.saveLog.latestGeneration
        #expect(try context.fetch(FetchDescriptor<FuzzOwner>()).count == 2)
        #expect(first.rank == 7, "merged from the other container")
        #expect(mine.saveLog.latestGeneration == before + 1, "one external save")
        // A save of this container is not taken for another's.
        first.rank = 8
        try context.save()
        let after = mine.saveLog.latestGeneration
        _ = try ModelContext(mine).fetch(FetchDescriptor<FuzzOwner>())
        #expect(mine.saveLog.latestGeneration == after)
    }

    /// A fetch or a save right after another container's save shows it in the models this context
    /// holds, every time: a store that hears of other connections' commits with its replies
    /// (PostgreSQL) looks again after the fetch, and a save learns of them from its history number.
    @Test func aFetchOrSaveRightAfterAnotherSaveMergesItEveryTime() throws {
        _ = try seed()
        let context = ModelContext(try container())
        let other = ModelContext(try container())
        let doomed = try #require(try context.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name == "doomed" })).first)
        for round in 1...40 {
            let mine = try context.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name == "first" }))
            let first = try #require(mine.first)
            let victimName = "victim \(round)"
            let victim = FuzzOwner(name: victimName, rank: round)
            context.insert(victim)
            try context.save()

            let copy = try #require(try other.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name == "first" })).first)
            copy.rank = round * 10
            try other.delete(model: FuzzOwner.self, where: #Predicate { $0.name == victimName })
            try other.save()

            if round.isMultiple(of: 2) {
                doomed.rank = -round
                try context.save()
                #expect(first.rank == round * 10, "round \(round): the other container's value, merged by the save")
                #expect(victim.isDeleted, "round \(round): deleted by the other container, merged by the save")
            }
            let names = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)])).map(\.name)
            #expect(names == ["doomed", "first"], "round \(round)")
            #expect(first.rank == round * 10, "round \(round): the other container's value, merged by the fetch")
            #expect(victim.isDeleted, "round \(round): deleted by the other container")
        }
    }

    /// A save that only inserts does not look at the store before it writes; its own history
    /// transaction's number shows that others committed first, and their saves are merged after it.
    @Test(arguments: [false, true])
    func aSaveMergesWhatOthersSavedBeforeIt(insertsOnly: Bool) throws {
        _ = try seed()
        let mine = try container()
        let context = ModelContext(mine)
        let owners = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)]))
        let first = try #require(owners.first { $0.name == "first" })
        let doomed = try #require(owners.first { $0.name == "doomed" })

        let process = try helper("edit")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        context.insert(FuzzOwner(name: "third", rank: 3))
        if !insertsOnly { first.name = "first, renamed" }
        try context.save()
        #expect(first.rank == 99, "the other process's value, merged by the save without a fetch")
        #expect(doomed.isDeleted)
        // The next save of this container follows on directly: nothing is read, nothing is merged twice.
        let generation = mine.saveLog.latestGeneration
        context.insert(FuzzOwner(name: "fourth", rank: 4))
        try context.save()
        #expect(mine.saveLog.latestGeneration == generation + 1, "only this save")

        let reopened = ModelContext(try container())
        let names = try reopened.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == (insertsOnly ? ["first", "fourth", "second", "third"] : ["first, renamed", "fourth", "second", "third"]))
    }

    @MainActor
    @Test func theMainContextShowsAnotherProcessSaveByItself() async throws {
        _ = try seed()
        let container = try container()
        let first = try #require(try container.mainContext.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name == "first" })).first)
        #expect(first.rank == 1)
        let changed = ObservedFlag()
        withObservationTracking { _ = first.rank } onChange: { changed.set() }
        let process = try helper("edit")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        await waitUntil { changed.isSet }
        #expect(changed.isSet, "Observation fired without a fetch or save")
        #expect(first.rank == 99)
    }

    @Test func aWriterKilledMidSaveLeavesWholeTransactions() async throws {
        _ = try seed()
        let process = try helper("loop")
        // Killed once it has saved (its start takes longer on a busy machine), during a later save,
        // from a thread of its own: a test suspended in a busy run resumes when the other tests
        // leave it a thread, and the writer went on saving for seconds meanwhile (57,261 saves to
        // read back, once).
        let watching = try container()
        let writer = process.processIdentifier
        try await HelperProcess.onThreadOfItsOwn {
            defer { kill(writer, SIGKILL) }   // on every way out: it would write until the run ends
            var polls = 0
            while try ModelContext(watching).fetchCount(FetchDescriptor<FuzzOwner>()) <= 2, polls < 3_000 {
                polls += 1
                usleep(10_000)
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let context = ModelContext(try container())
        let looped = try context.fetch(FetchDescriptor<FuzzOwner>()).filter { $0.name.hasPrefix("loop-") }
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "helper" }))
        #expect(!history.isEmpty, "the writer saved before it was killed")
        #expect(history.allSatisfy { $0.changes.count == 10 }, "every recorded save is whole")
        #expect(history.reduce(0) { $0 + $1.changes.count } == looped.count, "every saved row is in the history and nothing else")
        #expect(looped.count % 10 == 0)
    }
}

/// A flag set from Observation's change handler.
final class ObservedFlag: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
