import Foundation
import Observation
import Testing
@testable import OpenSwiftData

/// Builds graphs inside an actor, as SwiftData apps import data in the background.
@ModelActor
actor JourneyImporter {
    func importJourneys(_ count: Int, outingsEach: Int) throws -> [PersistentIdentifier] {
        var identifiers: [PersistentIdentifier] = []
        for number in 0..<count {
            let journey = Journey(name: "imported \(number)")
            modelContext.insert(journey)
            for index in 0..<outingsEach { journey.outings.append(Outing(title: "\(number)-\(index)", cost: index)) }
            identifiers.append(journey.persistentModelID)
        }
        try modelContext.save()
        return try modelContext.fetchIdentifiers(FetchDescriptor<Journey>())
    }

    /// Moves every outing of one journey to another, by identifiers.
    func move(from source: PersistentIdentifier, to destination: PersistentIdentifier) throws {
        guard let from = self[source, as: Journey.self], let to = self[destination, as: Journey.self] else { return }
        for outing in from.outings { outing.journey = to }
        try modelContext.save()
    }
}

private final class Flag: @unchecked Sendable {
    var fired = false
}

struct RelationshipConcurrencyTests {
    @MainActor @Test func aGraphImportedInAnActorIsSeenAndChangedElsewhere() async throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Schema(graphModels), configurations: [store.configuration()])
        let importer = JourneyImporter(modelContainer: container)
        let ids = try await importer.importJourneys(50, outingsEach: 4)
        #expect(ids.count == 50)

        let main = container.mainContext
        var descriptor = FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.outings]
        let journeys = try main.fetch(descriptor)
        #expect(journeys.count == 50)
        #expect(journeys.allSatisfy { $0.outings.count == 4 })

        let first = journeys[0], second = journeys[1]
        try await importer.move(from: first.persistentModelID, to: second.persistentModelID)
        main.processPendingChanges()
        #expect(first.outings.isEmpty)
        #expect(second.outings.count == 8)
        #expect(second.outings.allSatisfy { $0.journey === second })
    }

    @Test func relationshipChangesNotifyObservers() throws {
        let store = TemporaryStore()
        let context = ModelContext(try ModelContainer(for: Schema(graphModels), configurations: [store.configuration()]))
        let journey = Journey(name: "watched")
        context.insert(journey)
        try context.save()
        let flag = Flag()
        withObservationTracking {
            _ = journey.outings
        } onChange: {
            flag.fired = true
        }
        // Set from the other side: the inverse changes, and observers of it hear about it.
        let outing = Outing(title: "new")
        outing.journey = journey
        #expect(flag.fired)
        #expect(journey.outings.contains { $0 === outing })
    }
}
