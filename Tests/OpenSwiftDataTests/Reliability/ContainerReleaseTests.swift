import Foundation
import Testing
@testable import OpenSwiftData

@Model final class ReleaseTrip {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \ReleaseVisit.trip) var visits: [ReleaseVisit] = []
    init(name: String) { self.name = name }
}

@Model final class ReleaseVisit {
    var title: String
    var trip: ReleaseTrip?
    init(title: String, trip: ReleaseTrip?) {
        self.title = title
        self.trip = trip
    }
}

@Model final class ReleaseTag {
    #Unique<ReleaseTag>([\.key])
    var key: Int
    var label: String
    init(key: Int, label: String) {
        self.key = key
        self.label = label
    }
}

/// A server opens containers and contexts for a while and lets them go: whatever a context was
/// left holding (unsaved models, deletions, models another context deleted), once nothing else
/// holds them the container is released, and with it the store's file handles or connections.
@Suite struct ContainerReleaseTests {
    /// What a context does before it is let go.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case unsavedRelatedModels, rolledBackRelatedModels, savedRelatedModels, savedDeletion
        case pendingDeletion, pendingCascade, rolledBackDeletion, deletionByPredicate, upsert
        case deletionByAnotherContext, deletionByAnotherContainer

        var testDescription: String { rawValue }
    }

    let store = TemporaryStore()

    func container() throws -> ModelContainer {
        try store.container(ReleaseTrip.self, ReleaseVisit.self, ReleaseTag.self)
    }

    /// Saves a trip with one visit from `context`.
    @discardableResult
    func savedTrip(in context: ModelContext) throws -> ReleaseTrip {
        let trip = ReleaseTrip(name: "Lisbon")
        context.insert(trip)
        context.insert(ReleaseVisit(title: "Belém", trip: trip))
        try context.save()
        return trip
    }

    func end(_ context: ModelContext, _ ending: Ending) throws {
        switch ending {
        case .unsavedRelatedModels:
            let trip = ReleaseTrip(name: "Porto")
            context.insert(trip)
            context.insert(ReleaseVisit(title: "Ribeira", trip: trip))
        case .rolledBackRelatedModels:
            let trip = ReleaseTrip(name: "Porto")
            context.insert(trip)
            context.insert(ReleaseVisit(title: "Ribeira", trip: trip))
            context.rollback()
        case .savedRelatedModels:
            try savedTrip(in: context)
        case .savedDeletion:
            context.delete(try savedTrip(in: context))
            try context.save()
        case .pendingDeletion:
            context.delete(try savedTrip(in: context))
        case .pendingCascade:
            context.delete(try savedTrip(in: context))
            context.processPendingChanges()
        case .rolledBackDeletion:
            context.delete(try savedTrip(in: context))
            context.rollback()
        case .deletionByPredicate:
            try savedTrip(in: context)
            try context.delete(model: ReleaseTrip.self, where: #Predicate { $0.name == "Lisbon" })
            try context.save()
        case .upsert:
            context.insert(ReleaseTag(key: 1, label: "first"))
            context.insert(ReleaseTag(key: 1, label: "second"))
            try context.save()
        case .deletionByAnotherContext, .deletionByAnotherContainer:
            let trip = try savedTrip(in: context)
            let visit = try #require(trip.visits.first)
            let other = ModelContext(ending == .deletionByAnotherContext ? context.container : try container())
            try other.delete(model: ReleaseTrip.self, where: #Predicate { $0.name == "Lisbon" })
            try other.save()
            #expect(try context.fetch(FetchDescriptor<ReleaseVisit>()).isEmpty)
            #expect(trip.isDeleted && visit.isDeleted)
            #expect(trip.visits.isEmpty && visit.trip == nil, "a model another context deleted holds no relationships, as after a deletion saved here")
        }
    }

    @Test(arguments: Ending.allCases)
    func aContainerIsReleasedWithItsLastContext(ending: Ending) throws {
        weak var released: ModelContainer?
        weak var releasedContext: ModelContext?
        do {
            let container = try container()
            released = container
            let context = ModelContext(container)
            releasedContext = context
            try end(context, ending)
        }
        #expect(releasedContext == nil)
        #expect(released == nil, "the container outlives a context that \(ending)")
        // What was saved stays saved.
        let trips = try ModelContext(try container()).fetch(FetchDescriptor<ReleaseTrip>())
        switch ending {
        case .savedRelatedModels, .pendingDeletion, .pendingCascade, .rolledBackDeletion:
            #expect(trips.map(\.name) == ["Lisbon"])
            #expect(trips.first?.visits.map(\.title) == ["Belém"])
        default:
            #expect(trips.isEmpty)
        }
    }

    @Test func anUnsavedModelKeptPastItsContextHoldsNoRelationships() throws {
        var trip: ReleaseTrip?
        do {
            let context = ModelContext(try container())
            trip = ReleaseTrip(name: "Porto")
            context.insert(trip!)
            context.insert(ReleaseVisit(title: "Ribeira", trip: trip))
            #expect(trip?.visits.count == 1)
        }
        #expect(trip?.name == "Porto")
        #expect(trip?.visits.isEmpty == true, "the unsaved visit went with its context")
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<ReleaseTrip>()) == 0)
    }

    @MainActor @Test func aContainerIsReleasedWithItsMainContext() throws {
        weak var released: ModelContainer?
        weak var releasedContext: ModelContext?
        do {
            let container = try container()
            released = container
            releasedContext = container.mainContext
            try savedTrip(in: container.mainContext)
            #expect(container.mainContext === releasedContext, "the container keeps one main context")
        }
        #expect(releasedContext == nil)
        #expect(released == nil, "a container and its main context, each referring to the other, are released")
        #expect(try ModelContext(try container()).fetch(FetchDescriptor<ReleaseTrip>()).map(\.name) == ["Lisbon"])
    }

    @MainActor @Test func aMainContextKeptPastItsContainerGoesOn() throws {
        weak var released: ModelContainer?
        let context: ModelContext
        do {
            let container = try container()
            released = container
            context = container.mainContext
            try savedTrip(in: context)
        }
        #expect(released == nil)
        let trip = try #require(try context.fetch(FetchDescriptor<ReleaseTrip>()).first)
        #expect(trip.visits.map(\.title) == ["Belém"])
        context.insert(ReleaseVisit(title: "Alfama", trip: trip))
        try context.save()
        #expect(context.container.schema.entitiesByName["ReleaseVisit"] != nil)
        let other = ModelContext(context.container)
        #expect(try other.fetch(FetchDescriptor<ReleaseVisit>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["Alfama", "Belém"])
        let reopened = ModelContext(try container())
        #expect(try reopened.fetch(FetchDescriptor<ReleaseVisit>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["Alfama", "Belém"])
    }
}
