import Foundation
import Testing
@testable import OpenSwiftData

/// What the plans below run in their `willMigrate`, set by the test that opens them.
private let duringThePlan = PlanHook()

/// V1 → V2 with a `willMigrate` that runs ``duringThePlan``, then a `didMigrate` that fails: the
/// store is restored to V1.
private enum FailingAfterAHookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TripsV1.self, toVersion: TripsV2.self, willMigrate: { _ in duringThePlan.run() }, didMigrate: { _ in throw DidMigrateFailure() })]
    }
}

/// The same stage, completing.
private enum CompletingAfterAHookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TripsV1.self, toVersion: TripsV2.self, willMigrate: { _ in duringThePlan.run() }, didMigrate: nil)]
    }
}

/// Another container saves while a `SchemaMigrationPlan` migrates the store file (an app's second
/// scene, a server's other request, another process). A plan runs in several transactions and
/// undoes a failure by restoring the copy it took first, so a save that landed in between would be
/// reported saved and then lost. Such saves are refused instead (`storeIsBusy`), with nothing
/// written; the context keeps its changes.
@Suite(.serialized) struct SavesDuringAPlanTests {
    private static func v1Store() throws -> TemporaryStore {
        let store = TemporaryStore()
        let context = ModelContext(try ModelContainer(for: Schema([TripsV1.Trip.self]), configurations: [ModelConfiguration(url: store.url)]))
        context.insert(TripsV1.Trip(name: "Kyoto", destination: "Japan"))
        try context.save()
        return store
    }

    private static func v1Names(_ url: URL) throws -> [String] {
        let context = ModelContext(try ModelContainer(for: Schema([TripsV1.Trip.self]), configurations: [ModelConfiguration(url: url)]))
        return try context.fetch(FetchDescriptor<TripsV1.Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    /// One save of a new trip in a new context of `container`, on a thread of its own (not a
    /// task of the plan's), as another part of the app would make it.
    private static func saveOnAnotherThread(_ name: String, in container: ModelContainer) -> Result<Void, any Error> {
        onAnotherThread {
            Result {
                let context = ModelContext(container)
                context.insert(TripsV1.Trip(name: name, destination: "elsewhere"))
                try context.save()
            }
        }
    }

    /// Opens the store with V2 models and `plan`, whose `willMigrate` has a container opened
    /// before the plan save "Lima" from another thread. Returns that container, what the open
    /// gave, and what the save gave.
    private static func openWhileAnEarlierContainerSaves(
        _ store: TemporaryStore, plan: any SchemaMigrationPlan.Type
    ) throws -> (earlier: ModelContainer, opened: Result<ModelContainer, any Error>, saved: Result<Void, any Error>?) {
        let earlier = try ModelContainer(for: Schema([TripsV1.Trip.self]), configurations: [ModelConfiguration(url: store.url)])
        let during = LockedBox<Result<Void, any Error>>()
        duringThePlan.set { during.value = Self.saveOnAnotherThread("Lima", in: earlier) }
        defer { duringThePlan.set(nil) }
        let opened = Result {
            try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: plan, configurations: [ModelConfiguration(url: store.url)])
        }
        return (earlier, opened, during.value)
    }

    @Test func aSaveWhileAPlanRunsIsRefusedAndNotLostWhenThePlanFails() throws {
        let store = try Self.v1Store()
        let (earlier, opened, saved) = try Self.openWhileAnEarlierContainerSaves(store, plan: FailingAfterAHookPlan.self)
        #expect(throws: SwiftDataError.migrationFailed) { try opened.get() }
        let outcome = try #require(saved)
        let names = try Self.v1Names(store.url)
        switch outcome {
        case .success:
            Issue.record("the save during the plan was reported saved; the store holds \(names)")
        case .failure(let error):
            let refusal = try #require(error as? SwiftDataError, "\(error)")
            #expect(refusal.kind == .storeIsBusy)
            #expect("\(refusal)".contains("migrat"), "the error says why: \(refusal)")
        }
        #expect(names == ["Kyoto"])
        // The plan put the store back in place: the container opened before it goes on using it.
        let context = ModelContext(earlier)
        #expect(try context.fetch(FetchDescriptor<TripsV1.Trip>()).map(\.name) == ["Kyoto"])
        context.insert(TripsV1.Trip(name: "Lima", destination: "Peru"))
        try context.save()
        #expect(try Self.v1Names(store.url) == ["Kyoto", "Lima"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.folder.path).filter { $0.contains(".osd-migration") }
        #expect(leftovers.isEmpty, "the migration's files are gone: \(leftovers)")
    }

    @Test func aSaveWhileAPlanRunsIsRefusedWhenThePlanCompletes() throws {
        let store = try Self.v1Store()
        let (_, opened, saved) = try Self.openWhileAnEarlierContainerSaves(store, plan: CompletingAfterAHookPlan.self)
        let migrated = try opened.get()
        #expect(throws: SwiftDataError.storeIsBusy) { try saved?.get() }
        let names = try ModelContext(migrated).fetch(FetchDescriptor<TripsV2.Trip>()).map(\.name)
        #expect(names == ["Kyoto"])
        // The plan's own saves went through: a plan whose stage saves is not refused.
        let context = ModelContext(migrated)
        context.insert(TripsV2.Trip(name: "Oslo", place: "Norway"))
        try context.save()
        #expect(try ModelContext(migrated).fetchCount(FetchDescriptor<TripsV2.Trip>()) == 2)
    }

    /// A reader that holds an older state of the store keeps the WAL from being written back into
    /// the file: the plan then does not copy the file (the copy would lack the newer saves, and a
    /// failing plan would put it back); it throws `storeIsBusy` before changing anything. (It waits
    /// for the reader for SQLite's busy timeout first: about five seconds.)
    @Test func aPlanDoesNotCopyAStoreWhoseWALAReaderHoldsBack() throws {
        let store = try Self.v1Store()
        let reader = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try reader.execute("BEGIN")
        #expect(try reader.integer("SELECT count(*) FROM Trip") == 1)
        let writer = ModelContext(try ModelContainer(for: Schema([TripsV1.Trip.self]), configurations: [ModelConfiguration(url: store.url)]))
        writer.insert(TripsV1.Trip(name: "Lima", destination: "Peru"))
        try writer.save()

        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: FailingAfterAHookPlan.self,
                                   configurations: [ModelConfiguration(url: store.url)])
        }
        #expect(error?.kind == .storeIsBusy, "\(String(describing: error))")
        try reader.execute("COMMIT")
        #expect(try Self.v1Names(store.url) == ["Kyoto", "Lima"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.folder.path).filter { $0.contains(".osd-migration") }
        #expect(leftovers.isEmpty, "the migration's files are gone: \(leftovers)")
    }

    /// A plan's file that cannot be read (here a link that leads to itself) may hide a running
    /// plan: a save is refused, naming the file, with nothing written and the context's changes
    /// kept, and goes through once the file is gone.
    @Test func aPlanFileThatCannotBeReadRefusesSaves() throws {
        let store = try Self.v1Store()
        let container = try ModelContainer(for: Schema([TripsV1.Trip.self]), configurations: [ModelConfiguration(url: store.url)])
        let planFile = store.url.path + ".osd-migration-plan"
        try #require(symlink(planFile, planFile) == 0, "a link to itself, which cannot be opened")
        let context = ModelContext(container)
        context.insert(TripsV1.Trip(name: "Oslo", destination: "Norway"))
        let refused = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(refused?.kind == .storeIsBusy)
        #expect(refused?.reason?.contains("cannot be read") == true, "\(String(describing: refused))")
        #expect(context.hasChanges)

        #expect(unlink(planFile) == 0)
        try context.save()
        #expect(try Self.v1Names(store.url) == ["Kyoto", "Oslo"])
    }

    /// A writer saves one trip after another in one container while plans fail over and over (each
    /// starts once the writer has saved since the last one, and waits in its `willMigrate` until
    /// the writer has been refused): every save it was told succeeded is in the store, and it
    /// never needs to open the store again.
    @Test func noSaveReportedSavedIsLostToFailingPlans() throws {
        let store = try Self.v1Store()
        let url = store.url
        let stop = LockedBox<Bool>()
        let refusals = RunCounter()
        let saves = RunCounter()
        // The writer's attempts so far: the n-th attempt saves "wn".
        let attempts = RunCounter()
        let container = try ModelContainer(for: Schema([TripsV1.Trip.self]), configurations: [ModelConfiguration(url: url)])
        // A thread of its own, not a task: it runs however busy the tasks' threads are.
        let outcome = LockedBox<(saved: [String], unexpected: [String])>()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            var saved: [String] = []
            var unexpected: [String] = []
            var index = 0
            while stop.value != true {
                index += 1
                attempts.increment()
                do {
                    let context = ModelContext(container)
                    context.insert(TripsV1.Trip(name: "w\(index)", destination: "here"))
                    try context.save()
                    saved.append("w\(index)")
                    saves.increment()
                } catch let error as SwiftDataError where error.kind == .storeIsBusy {
                    refusals.increment()
                } catch {
                    unexpected.append("\(error)")
                }
            }
            outcome.value = (saved, unexpected)
            finished.signal()
        }.start()
        // Each plan goes on once the writer has met it, or after about a minute.
        duringThePlan.set { refusals.waitUntil(above: refusals.value) }
        defer { duringThePlan.set(nil) }
        // The writer's attempts as each plan began and as it had failed, for the report of a loss.
        var plans: [ClosedRange<Int>] = []
        for _ in 0..<5 {
            // A save lands between two plans (the one a failing plan's restore must not undo),
            // however the threads are scheduled: wait for it.
            let savedBefore = saves.value
            saves.waitUntil(above: savedBefore)
            #expect(saves.value > savedBefore, "the writer saved before the plan")
            let before = refusals.value
            let began = attempts.value
            let failure = #expect(throws: SwiftDataError.self) {
                _ = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: FailingAfterAHookPlan.self,
                                       configurations: [ModelConfiguration(url: url)])
            }
            plans.append(began...max(began, attempts.value))
            #expect(failure?.kind == .migrationFailed, "\(String(describing: failure))")
            // Fewer refusals means the plan failed before its stage met the writer: the error says where.
            #expect(refusals.value > before, "the writer's saves during the plan were refused; the plan failed with \(String(describing: failure))")
        }
        stop.value = true
        finished.wait()
        let (saved, unexpected) = outcome.value ?? ([], ["the writer returned nothing"])
        #expect(unexpected.isEmpty, "\(unexpected.prefix(3))")
        let names = Set(try Self.v1Names(url))
        let lost = saved.filter { !names.contains($0) }
        #expect(!saved.isEmpty)
        let planWindows = plans.map { "\($0.lowerBound)–\($0.upperBound)" }.joined(separator: ", ")
        #expect(lost.isEmpty, "\(lost.count) of \(saved.count) saves reported saved are not in the store: \(lost.prefix(3)) … \(lost.suffix(2)); the writer's attempts as the plans began and failed: \(planWindows); \(attempts.value) attempts, \(refusals.value) refused")
    }
}

/// A closure a migration stage runs, set by the test that opens the plan.
private final class PlanHook: @unchecked Sendable {
    // @unchecked Sendable: `body` is only touched while `lock` is held.
    private let lock = NSLock()
    private var body: (@Sendable () -> Void)?
    func set(_ body: (@Sendable () -> Void)?) { lock.withLock { self.body = body } }
    func run() { lock.withLock { body }?() }
}

/// A value several threads read and write.
private final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched while `lock` is held.
    private let lock = NSLock()
    private var stored: Value?
    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Runs `body` on a new thread and waits for what it returns.
private func onAnotherThread(_ body: @escaping @Sendable () -> Result<Void, any Error>) -> Result<Void, any Error> {
    let done = DispatchSemaphore(value: 0)
    let result = LockedBox<Result<Void, any Error>>()
    Thread {
        result.value = body()
        done.signal()
    }.start()
    done.wait()
    return result.value ?? .failure(CancellationError())
}
