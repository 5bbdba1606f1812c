import Foundation
import Testing
@testable import OpenSwiftData

/// Updates saved before a migration name the properties they changed when read after it: the
/// history records which property list its masks refer to (a removed property drops out, a
/// renamed one is found by its original name, a property added before others does not take their
/// place).
struct HistoryAcrossMigrationTests {
    let store = TemporaryStore()

    /// The properties each update of a trip changed, by transaction, as names of V2's properties.
    static func updatedProperties(_ context: ModelContext) throws -> [[String]] {
        let names: [(PartialKeyPath<TripsV2.Trip>, String)] = [(\.name, "name"), (\.place, "place"), (\.notes, "notes"), (\.rating, "rating")]
        var result: [[String]] = []
        for transaction in try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
            for change in transaction.changes {
                guard case .update(let update as DefaultHistoryUpdate<TripsV2.Trip>) = change else { continue }
                result.append(names.filter { update.containsAttribute($0.0) }.map(\.1))
                #expect(update.updatedAttributes.count == result.last?.count)
            }
        }
        return result
    }

    @Test(arguments: [Backend.sqlite] + (PostgresTestServer.url == nil ? [] : [.postgres]))
    func updatesSavedBeforeAMigrationNameTheirProperties(_ backend: Backend) throws {
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: [backend.configuration(url: store.url)])
            let context = ModelContext(container)
            let trip = TripsV1.Trip(name: "Lisbon", destination: "Portugal")
            context.insert(trip)
            try context.save()
            trip.legacyCode = 7                // removed in V2: the update names nothing
            try context.save()
            trip.destination = "Porto"         // renamed `place` in V2
            try context.save()
            trip.name = "Porto trip"
            trip.legacyCode = 8
            try context.save()
        }
        // Opening with V2's models migrates the store (lightweight); V2 adds `notes` and `rating`.
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), configurations: [backend.configuration(url: store.url, allowsDestructiveMigration: true)])
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<TripsV2.Trip>()).first)
        trip.rating = 5
        try context.save()
        trip.notes = "windy"
        try context.save()
        let expected = [[], ["place"], ["name"], ["rating"], ["notes"]]
        #expect(try Self.updatedProperties(context) == expected)
        // Reopened, and read-only: the same.
        let reader = ModelContext(try ModelContainer(for: Schema(versionedSchema: TripsV2.self), configurations: [backend.configuration(url: store.url, allowsSave: false)]))
        #expect(try Self.updatedProperties(reader) == expected)
    }
}
