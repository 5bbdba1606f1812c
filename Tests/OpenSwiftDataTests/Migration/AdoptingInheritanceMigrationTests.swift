import Foundation
import Testing
import OpenSwiftData

/// Version 1 of a journeys app: one model class.
enum JourneysV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model
    final class Journey {
        var name: String
        var destination: String

        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

/// Version 2: the same class gains subclasses, as in SwiftData's "Adopting inheritance".
enum JourneysV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self, BusinessJourney.self, PersonalJourney.self] }

    @Model
    class Journey {
        var name: String
        var destination: String

        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }

    @Model
    final class BusinessJourney: Journey {
        var perdiem: Double = 0

        init(name: String, destination: String, perdiem: Double) {
            self.perdiem = perdiem
            super.init(name: name, destination: destination)
        }
    }

    @Model
    final class PersonalJourney: Journey {
        var reason: String = ""

        init(name: String, destination: String, reason: String) {
            self.reason = reason
            super.init(name: name, destination: destination)
        }
    }
}

/// V1 → V2, turning the journeys whose name says "work" into business journeys after the schema
/// changed.
enum JourneysPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JourneysV1.self, JourneysV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JourneysV1.self, toVersion: JourneysV2.self, willMigrate: nil,
                didMigrate: { context in
                    for journey in try context.fetch(FetchDescriptor<JourneysV2.Journey>()) where journey.name.hasPrefix("work") {
                        context.insert(JourneysV2.BusinessJourney(name: journey.name, destination: journey.destination, perdiem: 50))
                        context.delete(journey)
                    }
                    try context.save()
                }),
        ]
    }
}

/// Introducing subclasses into a model that already has rows: existing rows stay, new subclass rows
/// never take an existing row's key, and a stage can turn rows into subclass rows.
@Suite(.serialized) struct AdoptingInheritanceMigrationTests {
    private func container(_ version: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)? = nil, at store: TemporaryStore) throws -> ModelContainer {
        try ModelContainer(for: Schema(versionedSchema: version), migrationPlan: plan, configurations: [store.configuration()])
    }

    private func v1Store() throws -> TemporaryStore {
        let store = TemporaryStore()
        let context = ModelContext(try container(JourneysV1.self, at: store))
        for (name, destination) in [("work: Berlin", "Germany"), ("holiday", "Japan"), ("work: Oslo", "Norway"), ("weekend", "Wales")] {
            context.insert(JourneysV1.Journey(name: name, destination: destination))
        }
        try context.save()
        return store
    }

    @Test func addingSubclassesKeepsEveryRowAndEveryKeyDistinct() throws {
        let store = try v1Store()
        let context = ModelContext(try container(JourneysV2.self, at: store))
        let existing = try context.fetch(FetchDescriptor<JourneysV2.Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(existing.map(\.name) == ["holiday", "weekend", "work: Berlin", "work: Oslo"])
        #expect(existing.allSatisfy { type(of: $0) == JourneysV2.Journey.self })

        let business = JourneysV2.BusinessJourney(name: "conference", destination: "Lisbon", perdiem: 80)
        let personal = JourneysV2.PersonalJourney(name: "wedding", destination: "Rome", reason: "family")
        context.insert(business)
        context.insert(personal)
        try context.save()
        let identifiers = (existing + [business, personal]).map(\.persistentModelID)
        #expect(Set(identifiers.map(\.id)).count == identifiers.count, "a key names one row of the hierarchy")

        let reopened = ModelContext(try container(JourneysV2.self, at: store))
        let all = try reopened.fetch(FetchDescriptor<JourneysV2.Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["conference", "holiday", "wedding", "weekend", "work: Berlin", "work: Oslo"])
        #expect((reopened.model(for: business.persistentModelID) as? JourneysV2.BusinessJourney)?.perdiem == 80)
        #expect((reopened.model(for: personal.persistentModelID) as? JourneysV2.PersonalJourney)?.reason == "family")
        for journey in existing {
            let found = try #require(reopened.model(for: journey.persistentModelID) as? JourneysV2.Journey)
            #expect(found.name == journey.name)
            #expect(type(of: found) == JourneysV2.Journey.self)
        }
        #expect(try reopened.fetch(FetchDescriptor<JourneysV2.Journey>(predicate: #Predicate { $0 is JourneysV2.BusinessJourney })).map(\.name) == ["conference"])
    }

    @Test func aStageTurnsRowsIntoSubclassRows() throws {
        let store = try v1Store()
        _ = try container(JourneysV2.self, plan: JourneysPlan.self, at: store)

        let context = ModelContext(try container(JourneysV2.self, plan: JourneysPlan.self, at: store))
        let all = try context.fetch(FetchDescriptor<JourneysV2.Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["holiday", "weekend", "work: Berlin", "work: Oslo"])
        let business = try context.fetch(FetchDescriptor<JourneysV2.BusinessJourney>(sortBy: [SortDescriptor(\.name)]))
        #expect(business.map(\.name) == ["work: Berlin", "work: Oslo"])
        #expect(business.allSatisfy { $0.perdiem == 50 })
        #expect(try context.fetchCount(FetchDescriptor<JourneysV2.Journey>(predicate: #Predicate { !($0 is JourneysV2.BusinessJourney) })) == 2)

        context.insert(JourneysV2.PersonalJourney(name: "reunion", destination: "Cork", reason: "family"))
        try context.save()
        let keys = try ModelContext(try container(JourneysV2.self, plan: JourneysPlan.self, at: store))
            .fetch(FetchDescriptor<JourneysV2.Journey>()).map(\.persistentModelID)
        #expect(keys.count == 5)
        #expect(Set(keys.map(\.id)).count == 5, "a key names one row of the hierarchy")
    }
}
