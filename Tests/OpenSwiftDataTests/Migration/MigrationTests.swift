import Foundation
import MigrationScenarios
import Testing
import OpenSwiftData

/// Schema evolution on store files: automatic lightweight changes, plans with custom stages, and
/// failures that leave the store as it was.
@Suite(.serialized) struct MigrationTests {
    /// A container of a version; V2 removes `legacyCode`, which PostgreSQL's configuration refuses
    /// by default (`DestructiveMigrationTests`): these tests let it go, as SwiftData does.
    private func container(_ version: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)? = nil, at store: TemporaryStore) throws -> ModelContainer {
        try ModelContainer(for: Schema(versionedSchema: version), migrationPlan: plan, configurations: [store.configuration(allowsDestructiveMigration: true)])
    }

    /// A V1 store with three trips, two of them named alike.
    private func v1Store() throws -> TemporaryStore {
        let store = TemporaryStore()
        let context = ModelContext(try container(TripsV1.self, at: store))
        context.insert(TripsV1.Trip(name: "Paris", destination: "France"))
        context.insert(TripsV1.Trip(name: "Paris", destination: "Texas"))
        context.insert(TripsV1.Trip(name: "Kyoto", destination: "Japan"))
        try context.save()
        return store
    }

    @Test func compatibleChangesMigrateWithoutAPlan() throws {
        let store = try v1Store()
        let container = try container(TripsV2.self, at: store)
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<TripsV2.Trip>(sortBy: [SortDescriptor(\.place)]))
        #expect(trips.map(\.place) == ["France", "Japan", "Texas"], "renamed with originalName")
        #expect(trips.allSatisfy { $0.notes == nil }, "a new optional property is nil")
        #expect(trips.allSatisfy { $0.rating == 3 }, "a new property takes its declared initial value")
        context.insert(TripsV2.Traveler(name: "Ada"))
        try context.save()

        let reopened = ModelContext(try self.container(TripsV2.self, at: store))
        #expect(try reopened.fetchCount(FetchDescriptor<TripsV2.Trip>()) == 3)
        #expect(try reopened.fetch(FetchDescriptor<TripsV2.Traveler>()).map(\.name) == ["Ada"])
    }

    @Test func aPlanRunsEveryStageFromTheStoredVersionOnce() throws {
        let store = try v1Store()
        let before = willMigrateRuns.value
        do {
            let context = ModelContext(try container(TripsV3.self, plan: TripsPlan.self, at: store))
            let trips = try context.fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == ["Kyoto", "Paris"], "willMigrate removed the duplicate before names became unique")
            #expect(trips.map(\.summary) == ["Kyoto in Japan", "Paris in France"], "didMigrate filled the new property")
            #expect(trips.allSatisfy { $0.rating == 3 })
            // willMigrate deleted a trip and didMigrate changed two: a sync must not replay them.
            let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            #expect(history.count == 1, "only the V1 save is in the history")
            #expect(history.first?.changes.count == 3)
        }
        #expect(willMigrateRuns.value == before + 1)

        let again = ModelContext(try container(TripsV3.self, plan: TripsPlan.self, at: store))
        #expect(try again.fetchCount(FetchDescriptor<TripsV3.Trip>()) == 2)
        #expect(willMigrateRuns.value == before + 1, "no stage runs on a store that is current")
        again.insert(TripsV3.Trip(name: "Kyoto", place: "Japan, again"))
        try again.save()
        #expect(try again.fetchCount(FetchDescriptor<TripsV3.Trip>()) == 2, "the new constraint holds: the insert updated Kyoto")
        #expect(!FileManager.default.fileExists(atPath: store.url.path + ".osd-migration-backup"))
    }

    @Test func aFailingStageRestoresTheStore() throws {
        let store = try v1Store()
        let error = #expect(throws: SwiftDataError.migrationFailed) {
            try container(TripsV3.self, plan: FailingTripsPlan.self, at: store)
        }
        #expect(error?.reason?.contains("2.0.0") == true, "the error names the stage's version")
        #expect(error?.reason?.contains("DidMigrateFailure") == true, "\(String(describing: error?.reason))")
        #expect(!FileManager.default.fileExists(atPath: store.url.path + ".osd-migration-backup"))

        let context = ModelContext(try container(TripsV1.self, at: store))
        let trips = try context.fetch(FetchDescriptor<TripsV1.Trip>(sortBy: [SortDescriptor(\.destination)]))
        #expect(trips.map(\.destination) == ["France", "Japan", "Texas"], "the V1 data is intact and V1 opens it")
    }

    @Test func anIncompatibleChangeWithoutAPlanIsRefusedUntouched() throws {
        let store = try v1Store()
        let before = store.snapshot()
        let error = #expect(throws: SwiftDataError.schemaMismatch) {
            try container(TripsV1WithIntDestination.self, at: store)
        }
        #expect(error?.reason?.contains("Trip.destination changed type") == true)
        #expect(store.snapshot() == before)
    }

    @Test func duplicatesUnderANewUniqueConstraintFailWithoutAStageAndChangeNothing() throws {
        let store = try v1Store()
        _ = try container(TripsV2.self, at: store)
        #expect(throws: SwiftDataError.self) { try container(TripsV3.self, at: store) }
        let context = ModelContext(try container(TripsV2.self, at: store))
        #expect(try context.fetchCount(FetchDescriptor<TripsV2.Trip>()) == 3)
    }

    @Test func renamesAndNewColumnsAlterTheTableInPlace() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(PetsV1.Pet.self))
            context.insert(PetsV1.Pet(name: "Rex", kind: "dog"))
            context.insert(PetsV1.Pet(name: "Tom", kind: "cat"))
            try context.save()
        }
        let context = ModelContext(try store.container(PetsV2.Pet.self))
        let pets = try context.fetch(FetchDescriptor<PetsV2.Pet>(predicate: #Predicate { $0.species == "cat" || $0.species == "dog" }, sortBy: [SortDescriptor(\.name)]))
        #expect(pets.map(\.species) == ["dog", "cat"])
        #expect(pets.allSatisfy { $0.age == 1 && $0.weight == 2.5 && $0.nickname == nil && $0.tag == "it's new" })
        context.insert(PetsV2.Pet(name: "Kiwi", species: "bird"))
        try context.save()
        #expect(try ModelContext(try store.container(PetsV2.Pet.self)).fetchCount(FetchDescriptor<PetsV2.Pet>()) == 3)
    }

    @Test func aStoreOfANewerSchemaVersionIsRefusedUntouched() throws {
        let store = try v1Store()
        _ = try container(TripsV3.self, plan: TripsPlan.self, at: store)
        let before = store.snapshot()
        #expect(throws: SwiftDataError.backwardMigration) { try container(TripsV2.self, at: store) }
        #expect(throws: SwiftDataError.backwardMigration) { try container(TripsV2.self, plan: TripsPlan.self, at: store) }
        #expect(store.snapshot() == before)
        #expect(try ModelContext(try container(TripsV3.self, at: store)).fetchCount(FetchDescriptor<TripsV3.Trip>()) == 2)
    }

    // MARK: Leftovers of an interrupted migration (the kill tests are in MigrationKillTests)

    /// A copy of the store file alone, its WAL written into it first (as a migration's backup is).
    private func copyOfTheStore(_ store: TemporaryStore, to path: String) throws {
        try KillScenario.checkpoint(store.url)
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: store.url.path, toPath: path)
    }

    @Test func anInterruptedMigrationIsUndoneFromItsBackupOnTheNextOpen() throws {
        let store = try v1Store()
        let backup = store.url.path + ".osd-migration-backup"
        try copyOfTheStore(store, to: backup + ".before")
        // What a migration had changed when it was killed.
        do {
            let context = ModelContext(try container(TripsV1.self, at: store))
            context.insert(TripsV1.Trip(name: "Half", destination: "Done"))
            try context.save()
        }
        try FileManager.default.moveItem(atPath: backup + ".before", toPath: backup)
        #expect(FileManager.default.createFile(atPath: store.url.path + ".osd-migration", contents: Data()))
        let context = ModelContext(try container(TripsV1.self, at: store))
        #expect(try context.fetchCount(FetchDescriptor<TripsV1.Trip>()) == 3, "the store as it was before the migration")
        #expect(!FileManager.default.fileExists(atPath: backup))
        #expect(!FileManager.default.fileExists(atPath: store.url.path + ".osd-migration"))
    }

    @Test func aBackupLeftByAFinishedMigrationIsRemovedAndNotUsed() throws {
        let store = try v1Store()
        let backup = store.url.path + ".osd-migration-backup"
        try copyOfTheStore(store, to: backup)
        do {
            let context = ModelContext(try container(TripsV1.self, at: store))
            context.insert(TripsV1.Trip(name: "Later", destination: "Saved"))
            try context.save()
        }
        #expect(!FileManager.default.fileExists(atPath: backup), "the next open removed the leftover")
        #expect(try ModelContext(try container(TripsV1.self, at: store)).fetchCount(FetchDescriptor<TripsV1.Trip>()) == 4)
    }

    @Test func anInterruptedMigrationWhoseBackupWasRemovedIsAnErrorAndNothingChanges() throws {
        let store = try v1Store()
        _ = try container(TripsV1.self, at: store)
        #expect(FileManager.default.createFile(atPath: store.url.path + ".osd-migration", contents: Data()))
        let before = store.snapshot()
        for plan in [nil, TripsPlan.self] as [(any SchemaMigrationPlan.Type)?] {
            let error = #expect(throws: SwiftDataError.migrationFailed) {
                try container(plan == nil ? TripsV1.self : TripsV3.self, plan: plan, at: store)
            }
            #expect(error?.reason?.contains("osd-migration-backup is missing") == true, "\(String(describing: error?.reason))")
        }
        #expect(store.snapshot() == before)
        #expect(FileManager.default.fileExists(atPath: store.url.path + ".osd-migration"), "the marker stays until someone decides")
    }
}
