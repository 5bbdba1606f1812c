import Foundation
import OpenSwiftData

/// Version 1 of a trips app.
enum TripsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        var name: String
        var destination: String
        var legacyCode: Int = 0

        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

/// Version 2: `destination` renamed `place`, `legacyCode` removed, `notes` and `rating` added, a
/// new model.
enum TripsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Traveler.self] }

    @Model
    final class Trip {
        var name: String
        @Attribute(originalName: "destination") var place: String
        var notes: String?
        var rating: Int = 3

        init(name: String, place: String) {
            self.name = name
            self.place = place
        }
    }

    @Model
    final class Traveler {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// Version 3: trip names become unique, and a summary is filled from the other properties.
enum TripsV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, TripsV2.Traveler.self] }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var place: String
        var notes: String?
        var rating: Int = 3
        var summary: String = ""

        init(name: String, place: String) {
            self.name = name
            self.place = place
        }
    }
}

/// Version 1 with a property whose type changed: not a lightweight change.
enum TripsV1WithIntDestination: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 1, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        var name: String
        var destination: Int
        var legacyCode: Int = 0

        init(name: String, destination: Int) {
            self.name = name
            self.destination = destination
        }
    }
}

/// Counts how often a migration closure ran, across threads.
final class RunCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched while `lock` is held.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }

    /// Waits, polling, until the count is above `earlier`, for up to about a minute: another
    /// thread's progress, however the threads are scheduled. Callers then assert the count itself.
    func waitUntil(above earlier: Int) {
        for _ in 0..<6_000 where value <= earlier { usleep(10_000) }
    }
}

let willMigrateRuns = RunCounter()

/// V1 → V2 lightweight, then V2 → V3 custom: duplicates removed before names become unique, the
/// summary filled after.
enum TripsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self),
            .custom(
                fromVersion: TripsV2.self, toVersion: TripsV3.self,
                willMigrate: { context in
                    willMigrateRuns.increment()
                    try removeDuplicateNames(context)
                },
                didMigrate: { context in
                    for trip in try context.fetch(FetchDescriptor<TripsV3.Trip>()) {
                        trip.summary = "\(trip.name) in \(trip.place)"
                    }
                }),
        ]
    }
}

/// Keeps the first trip of each name, by place.
@Sendable func removeDuplicateNames(_ context: ModelContext) throws {
    var seen = Set<String>()
    for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>(sortBy: [SortDescriptor(\.place)])) {
        if !seen.insert(trip.name).inserted { context.delete(trip) }
    }
}

struct DidMigrateFailure: Error {}

/// The same stages, but `didMigrate` fails.
enum FailingTripsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self),
            .custom(fromVersion: TripsV2.self, toVersion: TripsV3.self, willMigrate: removeDuplicateNames,
                    didMigrate: { _ in throw DidMigrateFailure() }),
        ]
    }
}

/// A model before and after changes that alter its table in place: a rename and added columns.
enum PetsV1 {
    @Model
    final class Pet {
        #Index<Pet>([\.kind])
        var name: String
        var kind: String
        init(name: String, kind: String) {
            self.name = name
            self.kind = kind
        }
    }
}

enum PetsV2 {
    @Model
    final class Pet {
        #Index<Pet>([\.species])
        var name: String
        @Attribute(originalName: "kind") var species: String
        var age: Int = 1
        var weight: Double = 2.5
        var nickname: String?
        var tag: String = "it's new"
        init(name: String, species: String) {
            self.name = name
            self.species = species
        }
    }
}
