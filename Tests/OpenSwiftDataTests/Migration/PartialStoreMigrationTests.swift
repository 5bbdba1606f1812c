import Foundation
import Testing
import OpenSwiftData
import OpenSwiftDataPostgres

/// The trips app's versions with a second model kept in a store of its own.
enum SplitV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [TripsV1.Trip.self, Note.self] }
}

enum SplitV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [TripsV2.Trip.self, TripsV2.Traveler.self, Note.self] }
}

enum SplitV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [TripsV3.Trip.self, TripsV2.Traveler.self, Note.self] }
}

/// `TripsPlan`'s stages over the split versions.
enum SplitPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SplitV1.self, SplitV2.self, SplitV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: SplitV1.self, toVersion: SplitV2.self),
            .custom(
                fromVersion: SplitV2.self, toVersion: SplitV3.self,
                willMigrate: { try removeDuplicateNames($0) },
                didMigrate: { context in
                    for trip in try context.fetch(FetchDescriptor<TripsV3.Trip>()) { trip.summary = "\(trip.name) in \(trip.place)" }
                }),
        ]
    }
}

/// A migration plan on a container whose configurations each hold part of the models: every
/// store runs the stages on the models it holds, on every store kind.
@Suite(.serialized) struct PartialStoreMigrationTests {
    static var backends: [Backend] { Backend.allCases.filter { $0 != .dataStore } }

    private func configurations(_ backend: Backend, trips: [any PersistentModel.Type], at folder: URL) -> [any DataStoreConfiguration] {
        let tripsURL = folder.appendingPathComponent("trips.store"), notesURL = folder.appendingPathComponent("notes.store")
        switch backend {
        case .postgres:
            return [
                PostgresTestServer.configuration(for: tripsURL, schema: Schema(trips)),
                PostgresTestServer.configuration(for: notesURL, schema: Schema([Note.self])),
            ]
        default:
            return [
                ModelConfiguration("trips", schema: Schema(trips), url: tripsURL),
                ModelConfiguration("notes", schema: Schema([Note.self]), url: notesURL),
            ]
        }
    }

    @Test(arguments: backends)
    func eachStoreRunsThePlanOnTheModelsItHolds(_ backend: Backend) throws {
        let folder = TemporaryStore().url.deletingLastPathComponent().appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }   // scratch files of the test
        do {
            let v1 = try ModelContainer(
                for: Schema(versionedSchema: SplitV1.self),
                configurations: configurations(backend, trips: [TripsV1.Trip.self], at: folder))
            let context = ModelContext(v1)
            context.insert(TripsV1.Trip(name: "Paris", destination: "France"))
            context.insert(TripsV1.Trip(name: "Paris", destination: "Texas"))
            context.insert(TripsV1.Trip(name: "Kyoto", destination: "Japan"))
            context.insert(Note(text: "pack light"))
            try context.save()
        }
        for _ in 0..<2 {   // the second open finds both stores current
            let v3 = try ModelContainer(
                for: Schema(versionedSchema: SplitV3.self), migrationPlan: SplitPlan.self,
                configurations: configurations(backend, trips: [TripsV3.Trip.self, TripsV2.Traveler.self], at: folder))
            let context = ModelContext(v3)
            let trips = try context.fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == ["Kyoto", "Paris"], "willMigrate ran on the trips store")
            #expect(trips.map(\.summary) == ["Kyoto in Japan", "Paris in France"], "didMigrate ran on the trips store")
            #expect(try context.fetch(FetchDescriptor<Note>()).map(\.text) == ["pack light"], "the notes store is as it was")
            context.insert(TripsV2.Traveler(name: "Ada"))
            try context.save()
        }
        // Each store records the models it holds, and no table of the other's.
        let recorded = try configurations(backend, trips: [], at: folder).map { configuration -> [String] in
            let tooling: any StoreTooling = if let postgres = configuration as? PostgresStoreConfiguration {
                try PostgresStoreAccess(url: postgres.url, name: postgres.name)
            } else {
                try StoreFile(path: (configuration as! ModelConfiguration).url.path)
            }
            return tooling.schema.entities.map(\.name).sorted()
        }
        #expect(recorded == [["Traveler", "Trip"], ["Note"]])
        #expect(try ModelContext(ModelContainer(
            for: Schema(versionedSchema: SplitV3.self),
            configurations: configurations(backend, trips: [TripsV3.Trip.self, TripsV2.Traveler.self], at: folder)
        )).fetchCount(FetchDescriptor<TripsV2.Traveler>()) == 2)
    }
}
