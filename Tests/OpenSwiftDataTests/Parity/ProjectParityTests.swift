import Foundation
import Testing
@testable import OpenSwiftData

/// Differences from SwiftData that real projects' code met, each written as that code is written:
/// the context's initializer passed as a function, autosave of a context a helper made on the main
/// thread, a migration back through an explicit stage, and predicates whose `Optional.flatMap`
/// yields a `Bool` or whose `contains` looks for an optional.
@Suite struct ProjectParityTests {
    /// A database wrapper that keeps a factory of contexts, `ModelContext.init` by default.
    struct Database {
        let container: ModelContainer
        let makeContext: (ModelContainer) -> ModelContext
        init(container: ModelContainer, factory: ((ModelContainer) -> ModelContext)? = nil) {
            self.container = container
            self.makeContext = factory ?? ModelContext.init
        }
    }

    @Test func theInitializerServesAsAContextFactory() throws {
        let store = TemporaryStore()
        let database = Database(container: try store.container(Note.self))
        let context = database.makeContext(database.container)
        context.insert(Note(text: "made by the factory"))
        try context.save()
        let reopened = ModelContext(try store.container(Note.self))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["made by the factory"])
    }

    /// A context made on the main thread by code that is not main-actor isolated autosaves there.
    @MainActor @Test func aContextAHelperMadeOnTheMainThreadAutosaves() async throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        let context = makeEditingContext(for: container)
        context.insert(Note(text: "saved by itself"))
        #expect(context.hasChanges)
        await waitUntil { !context.hasChanges }
        #expect(!context.hasChanges, "the insert is saved on a later turn of the main run loop")
        let reopened = ModelContext(try store.container(Note.self))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["saved by itself"])
    }

    /// A context made by a model actor's code, off the main thread, does not autosave.
    @Test func aContextMadeOffTheMainThreadDoesNotAutosave() async throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        let pending = await Task.detached {
            let context = makeEditingContext(for: container)
            context.insert(Note(text: "waits for save()"))
            for _ in 0..<20 { await Task.yield() }
            return context.hasChanges
        }.value
        #expect(pending)
        #expect(try ModelContext(try store.container(Note.self)).fetchCount(FetchDescriptor<Note>()) == 0)
    }

    // MARK: Going back a version through an explicit stage

    /// A store written at V3 (two trips), on the run's default backend.
    private func v3Store() throws -> TemporaryStore {
        let store = TemporaryStore()
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: TripsV3.self), configurations: [store.configuration()]))
        for (name, place, summary) in [("Paris", "France", "spring"), ("Kyoto", "Japan", "autumn")] {
            let trip = TripsV3.Trip(name: name, place: place)
            trip.summary = summary
            context.insert(trip)
        }
        try context.save()
        return store
    }

    @Test func anExplicitStageMigratesAStoreBackToAnOlderVersion() throws {
        let store = try v3Store()
        let configuration = store.configuration()
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsDowngradePlan.self, configurations: [configuration])
        let trips = try ModelContext(container).fetch(FetchDescriptor<TripsV2.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Kyoto", "Paris"])
        #expect(trips.map(\.notes) == ["autumn", "spring"], "willMigrate kept each summary in the notes")
        #expect(trips.map(\.rating) == [5, 5], "didMigrate ran on the V2 models")

        // Reopened at V2 without the plan, the store is simply at V2; V3's uniqueness is gone.
        let reopened = ModelContext(try ModelContainer(for: Schema(versionedSchema: TripsV2.self), configurations: [configuration]))
        reopened.insert(TripsV2.Trip(name: "Paris", place: "Texas"))
        try reopened.save()
        #expect(try reopened.fetchCount(FetchDescriptor<TripsV2.Trip>()) == 3)
    }

    @Test func withoutAStageBackTheOlderVersionIsStillRefused() throws {
        let store = try v3Store()
        var message = ""
        do {
            _ = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsPlan.self, configurations: [store.configuration()])
            Issue.record("opening a V3 store at V2 without a stage back should fail")
        } catch let error as SwiftDataError {
            #expect(error == .backwardMigration)
            message = "\(error)"
        }
        #expect(message.contains("stage from version 3.0.0 to 2.0.0"), "\(message)")
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: TripsV3.self), configurations: [store.configuration()]))
        #expect(try context.fetch(FetchDescriptor<TripsV3.Trip>()).map(\.summary).sorted() == ["autumn", "spring"])
    }

    @Test func aFailingStageBackLeavesTheStoreAtItsVersion() throws {
        let store = try v3Store()
        #expect(throws: SwiftDataError.migrationFailed) {
            try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: FailingTripsDowngradePlan.self, configurations: [store.configuration()])
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: TripsV3.self), configurations: [store.configuration()]))
        let trips = try context.fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.summary) == ["autumn", "spring"])
        #expect(trips.map(\.notes) == [nil, nil])
    }

    // MARK: Predicates in three-valued logic

    /// Contacts with every combination of a nickname, a name, an owner, a ratio and a number
    /// (one beyond 2^53), saved and read back by a new container.
    private func contacts(on backend: Backend) throws -> (TemporaryStore, ModelContext) {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(ParityContact.self, ParityCompany.self, backend: backend))
        let company = ParityCompany(name: "Initech")
        for nick in [nil, "Acme", "Zed"] as [String?] {
            for name in ["Apple", "Initech", "Zebra"] {
                for owned in [false, true] {
                    for ratio in [nil, 1.5] as [Double?] {
                        for number in [nil, 1, 9_007_199_254_740_993] as [Int?] {
                            let contact = ParityContact(name: name, nick: nick, optRatio: ratio, optInt: number)
                            context.insert(contact)
                            if owned { contact.owner = company }
                        }
                    }
                }
            }
        }
        try context.save()
        return (store, ModelContext(try store.container(ParityContact.self, ParityCompany.self, backend: backend)))
    }

    /// The contacts a fetch selects, and those `evaluate` selects among all of them.
    private func fetchedAndEvaluated(_ predicate: Predicate<ParityContact>, in context: ModelContext) throws -> (fetched: Set<String>, evaluated: Set<String>) {
        let everyone = try context.fetch(FetchDescriptor<ParityContact>())
        let evaluated = Set(try everyone.filter { try predicate.evaluate($0) }.map(\.label))
        let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(\.label))
        return (fetched, evaluated)
    }

    @Test(arguments: Backend.allCases.filter { $0 != .dataStore })
    func aFlatMapYieldingABoolComparesAsSwiftDoes(backend: Backend) throws {
        let (_, context) = try contacts(on: backend)
        let list: [String?] = ["Acme", "Initech"]
        let predicate = #Predicate<ParityContact> { row in
            (row.nick.flatMap { _ in row.name < "Initech" } != row.owner.flatMap { _ in list.contains(row.nick) }) != true
        }
        let (fetched, evaluated) = try fetchedAndEvaluated(predicate, in: context)
        #expect(!evaluated.isEmpty && evaluated.count < 108)
        #expect(fetched == evaluated, "only fetched: \(fetched.subtracting(evaluated).sorted().prefix(3)), only evaluated: \(evaluated.subtracting(fetched).sorted().prefix(3))")
    }

    @Test(arguments: Backend.allCases.filter { $0 != .dataStore })
    func containsOfAnOptionalIsFalseForNilWithoutNilInTheList(backend: Backend) throws {
        let (_, context) = try contacts(on: backend)
        let ints: [Int?] = [1, 9_007_199_254_740_993]
        let predicate = #Predicate<ParityContact> { row in
            (row.owner.flatMap { _ in row.optRatio == nil } == nil) && (row.nick.flatMap { _ in ints.contains(row.optInt) } == false)
        }
        let (fetched, evaluated) = try fetchedAndEvaluated(predicate, in: context)
        #expect(!evaluated.isEmpty && evaluated.count < 108)
        #expect(fetched == evaluated, "only fetched: \(fetched.subtracting(evaluated).sorted().prefix(3)), only evaluated: \(evaluated.subtracting(fetched).sorted().prefix(3))")

        let withNil: [Int?] = [nil, 1]
        let negated = #Predicate<ParityContact> { row in !withNil.contains(row.optInt) == (row.nick != nil) }
        let (fetchedNegated, evaluatedNegated) = try fetchedAndEvaluated(negated, in: context)
        #expect(!evaluatedNegated.isEmpty)
        #expect(fetchedNegated == evaluatedNegated)
    }
}

/// Makes the context a screen edits in: called from main-actor code, but not isolated itself.
func makeEditingContext(for container: ModelContainer) -> ModelContext {
    let context = ModelContext(container)
    context.autosaveEnabled = true
    return context
}

/// Keeps each V3 trip's summary in its notes, before V2 drops the summary.
@Sendable private func keepSummariesInNotes(_ context: ModelContext) throws {
    for trip in try context.fetch(FetchDescriptor<TripsV3.Trip>()) { trip.notes = trip.summary }
    try context.save()
}

/// V3 → V2: an explicit stage back, keeping each summary in the notes before V2 drops it.
enum TripsDowngradePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TripsV3.self, toVersion: TripsV2.self,
                 willMigrate: keepSummariesInNotes,
                 didMigrate: { context in
                     for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>()) { trip.rating = 5 }
                     try context.save()
                 })]
    }
}

/// The same stage back, whose `didMigrate` fails after the schema change.
enum FailingTripsDowngradePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TripsV3.self, toVersion: TripsV2.self,
                 willMigrate: keepSummariesInNotes,
                 didMigrate: { _ in throw DidMigrateFailure() })]
    }
}

/// A company a contact may belong to.
@Model final class ParityCompany {
    var name: String
    init(name: String) { self.name = name }
}

/// A contact with optional properties of several kinds and an optional owner.
@Model final class ParityContact {
    var name: String
    var nick: String?
    var owner: ParityCompany?
    var optRatio: Double?
    var optInt: Int?
    init(name: String, nick: String?, optRatio: Double?, optInt: Int?) {
        self.name = name
        self.nick = nick
        self.optRatio = optRatio
        self.optInt = optInt
    }

    /// Every value of the contact, which tells it from the others.
    var label: String {
        "\(name) \(nick ?? "-") \(owner == nil ? "-" : "owned") \(optRatio.map { "\($0)" } ?? "-") \(optInt.map { "\($0)" } ?? "-")"
    }
}
