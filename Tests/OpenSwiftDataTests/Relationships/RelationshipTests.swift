import Foundation
import Testing
@testable import OpenSwiftData

/// Relationships as SwiftData documents them: inverses kept at once in memory and after reopening,
/// new related models inserted with their root, lazy loading and prefetching, and the order of
/// to-many relationships read back from the store.
struct RelationshipTests {
    let store = TemporaryStore()

    func container(_ backend: Backend = .sqlite) throws -> ModelContainer { try store.graphContainer(backend) }

    @Test(arguments: Backend.allCases) func settingAToOneUpdatesTheInverseAtOnceAndAfterReopening(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let journey = Journey(name: "Alps")
        context.insert(journey)
        let hike = Outing(title: "Hike")
        hike.journey = journey
        #expect(journey.outings.map(\.title) == ["Hike"])
        #expect(hike.modelContext === context, "relating a new model to a managed one inserts it")
        try context.save()

        let reopened = ModelContext(try container(backend))
        let journeys = try reopened.fetch(FetchDescriptor<Journey>())
        #expect(journeys.count == 1)
        #expect(journeys[0].outings.map(\.title) == ["Hike"])
        #expect(journeys[0].outings[0].journey === journeys[0])
    }

    @Test(arguments: Backend.allCases) func appendingToAToManySetsTheToOneAndNeverDuplicates(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let journey = Journey(name: "Coast")
        context.insert(journey)
        let swim = Outing(title: "Swim")
        journey.outings.append(swim)
        #expect(swim.journey === journey)
        swim.journey = journey
        journey.outings.append(swim)
        #expect(journey.outings.count == 1)
        try context.save()

        let reopened = ModelContext(try container(backend))
        let outings = try reopened.fetch(FetchDescriptor<Outing>())
        #expect(outings.count == 1)
        #expect(outings[0].journey?.name == "Coast")
        #expect(outings[0].journey?.outings.count == 1)
    }

    @Test(arguments: Backend.allCases) func movingAChildLeavesItsOldParent(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let first = Journey(name: "First")
        let second = Journey(name: "Second")
        context.insert(first)
        context.insert(second)
        let a = Outing(title: "A", journey: first)
        let b = Outing(title: "B", journey: first)
        try context.save()

        a.journey = second
        second.outings.append(b)
        #expect(first.outings.isEmpty)
        #expect(Set(second.outings.map(\.title)) == ["A", "B"])
        #expect(b.journey === second)
        try context.save()

        let reopened = ModelContext(try container(backend))
        let journeys = try reopened.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(journeys.map(\.name) == ["First", "Second"])
        #expect(journeys[0].outings.isEmpty)
        #expect(journeys[1].outings.map(\.title) == ["A", "B"])
    }

    @Test(arguments: Backend.allCases) func removingFromAToManyClearsTheToOne(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let journey = Journey(name: "J")
        context.insert(journey)
        let outing = Outing(title: "O", journey: journey)
        try context.save()
        journey.outings.removeAll()
        #expect(outing.journey == nil)
        try context.save()

        let reopened = ModelContext(try container(backend))
        let outings = try reopened.fetch(FetchDescriptor<Outing>())
        #expect(outings.count == 1, "removing from a relationship does not delete the model")
        #expect(outings[0].journey == nil)
    }

    @Test(arguments: Backend.allCases) func oneToOneInverseIsInferredAndExclusive(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let first = Journey(name: "First")
        let second = Journey(name: "Second")
        let hotel = Lodging(name: "Hotel")
        context.insert(first)
        context.insert(second)
        first.lodging = hotel
        #expect(hotel.journey === first)
        second.lodging = hotel
        #expect(hotel.journey === second)
        #expect(first.lodging == nil, "a one-to-one target leaves its previous owner")
        try context.save()

        let reopened = ModelContext(try container(backend))
        let lodgings = try reopened.fetch(FetchDescriptor<Lodging>())
        #expect(lodgings.count == 1)
        #expect(lodgings[0].journey?.name == "Second")
        #expect(lodgings[0].journey?.lodging === lodgings[0])
        let journeys = try reopened.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.name == "First" }))
        #expect(journeys.first?.lodging == nil)
    }

    @Test(arguments: Backend.allCases) func manyToManyKeepsBothSides(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let hike = Outing(title: "Hike")
        let museum = Outing(title: "Museum")
        let outdoor = Label(name: "outdoor")
        let free = Label(name: "free")
        context.insert(hike)
        context.insert(museum)
        hike.labels = [outdoor, free]
        museum.labels.append(free)
        free.outings.append(museum)
        #expect(outdoor.outings.map(\.title) == ["Hike"])
        #expect(Set(free.outings.map(\.title)) == ["Hike", "Museum"])
        #expect(free.outings.count == 2, "appending on both sides never duplicates")
        try context.save()

        let reopened = ModelContext(try container(backend))
        let labels = try reopened.fetch(FetchDescriptor<Label>(sortBy: [SortDescriptor(\.name)]))
        #expect(labels.map(\.name) == ["free", "outdoor"])
        #expect(Set(labels[0].outings.map(\.title)) == ["Hike", "Museum"])
        #expect(labels[1].outings.map(\.title) == ["Hike"])
        let hikeAgain = labels[1].outings[0]
        #expect(Set(hikeAgain.labels.map(\.name)) == ["free", "outdoor"])

        hikeAgain.labels.removeAll { $0.name == "free" }
        #expect(labels[0].outings.map(\.title) == ["Museum"])
        try reopened.save()
        let third = ModelContext(try container(backend))
        let free3 = try third.fetch(FetchDescriptor<Label>(predicate: #Predicate { $0.name == "free" }))
        #expect(free3.first?.outings.map(\.title) == ["Museum"])
    }

    @Test(arguments: Backend.allCases) func selfReferentialFollowersMirrorFollowing(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let ana = Member(name: "Ana")
        let bo = Member(name: "Bo")
        let cy = Member(name: "Cy")
        context.insert(ana)
        ana.following.append(bo)
        ana.following.append(cy)
        cy.following.append(ana)
        #expect(bo.followers.map(\.name) == ["Ana"])
        #expect(ana.followers.map(\.name) == ["Cy"])
        #expect(bo.modelContext === context && cy.modelContext === context)
        try context.save()

        let reopened = ModelContext(try container(backend))
        let members = try reopened.fetch(FetchDescriptor<Member>(sortBy: [SortDescriptor(\.name)]))
        #expect(members.map(\.name) == ["Ana", "Bo", "Cy"])
        #expect(members[0].following.map(\.name) == ["Bo", "Cy"])
        #expect(members[0].followers.map(\.name) == ["Cy"])
        #expect(members[1].followers.map(\.name) == ["Ana"])
        #expect(members[2].following.map(\.name) == ["Ana"])
    }

    @Test(arguments: Backend.allCases) func insertingARootInsertsEveryNewModelReachableFromIt(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let journey = Journey(name: "Root")
        let outing = Outing(title: "Child")
        let label = Label(name: "Grandchild")
        outing.labels = [label]
        journey.outings = [outing]
        journey.lodging = Lodging(name: "Inn")
        context.insert(journey)
        #expect(context.insertedModelsArray.count == 4)
        try context.save()

        let reopened = ModelContext(try container(backend))
        #expect(try reopened.fetchCount(FetchDescriptor<Outing>()) == 1)
        #expect(try reopened.fetchCount(FetchDescriptor<Label>()) == 1)
        #expect(try reopened.fetch(FetchDescriptor<Journey>()).first?.lodging?.name == "Inn")
        #expect(try reopened.fetch(FetchDescriptor<Label>()).first?.outings.first?.journey?.name == "Root")
    }

    @Test(arguments: Backend.allCases) func aModelAppendedAfterInsertIsSavedToo(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let checklist = Checklist(title: "Packing")
        context.insert(checklist)
        try context.save()
        checklist.entries = (checklist.entries ?? []) + [ChecklistEntry(text: "Socks")]
        checklist.entries?.append(ChecklistEntry(text: "Map"))
        try context.save()

        let reopened = ModelContext(try container(backend))
        let lists = try reopened.fetch(FetchDescriptor<Checklist>())
        #expect(lists.first?.entries?.map(\.text) == ["Socks", "Map"])
        #expect(lists.first?.entries?.first?.checklist === lists.first)
    }

    @Test(arguments: Backend.allCases) func relatingModelsOfTwoContextsIsAClearError(_ backend: Backend) throws {
        let container = try container(backend)
        let first = ModelContext(container)
        let second = ModelContext(container)
        let journey = Journey(name: "Mine")
        first.insert(journey)
        try first.save()
        let outing = Outing(title: "Theirs")
        second.insert(outing)
        outing.journey = journey
        #expect {
            try second.save()
        } throws: { error in
            "\(error)".contains("Outing.journey") && "\(error)".contains("another ModelContext")
        }
    }

    @Test(arguments: Backend.allCases) func toManyOrderReadBackIsTheOrderModelsWereFirstSaved(_ backend: Backend) throws {
        // SwiftData does not keep the order of to-many relationships; OpenSwiftData returns them
        // in the order they were first saved (primary-key order), whatever order they were appended.
        let context = ModelContext(try container(backend))
        let journey = Journey(name: "Ordered")
        context.insert(journey)
        let outings = (0..<5).map { Outing(title: "o\($0)") }
        for outing in outings { context.insert(outing) }
        try context.save()
        journey.outings = outings.reversed()
        #expect(journey.outings.map(\.title) == ["o4", "o3", "o2", "o1", "o0"], "in memory the array is what was assigned")
        try context.save()

        let reopened = ModelContext(try container(backend))
        let again = try reopened.fetch(FetchDescriptor<Journey>())
        #expect(again.first?.outings.map(\.title) == ["o0", "o1", "o2", "o3", "o4"])
    }

    @Test func prefetchingLoadsEveryParentsChildren() throws {
        let context = ModelContext(try container())
        for number in 0..<20 {
            let journey = Journey(name: "j\(number)")
            context.insert(journey)
            for child in 0..<(number % 4) { _ = Outing(title: "j\(number)-o\(child)", cost: child, journey: journey) }
        }
        try context.save()

        let reopened = ModelContext(try container())
        var descriptor = FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.outings, \.lodging]
        let journeys = try reopened.fetch(descriptor)
        #expect(journeys.count == 20)
        for journey in journeys {
            let number = Int(journey.name.dropFirst())!
            #expect(journey.outings.map(\.title) == (0..<(number % 4)).map { "j\(number)-o\($0)" })
            #expect(journey.outings.allSatisfy { $0.journey === journey })
        }
        var outingsDescriptor = FetchDescriptor<Outing>()
        outingsDescriptor.relationshipKeyPathsForPrefetching = [\.journey]
        let outings = try reopened.fetch(outingsDescriptor)
        #expect(outings.allSatisfy { $0.journey.map { j in j.outings.contains { $0 === $0 } } ?? false })
    }
}

/// Listing the root model is enough, as in SwiftData: the schema follows its relationships.
struct SchemaDiscoveryTests {
    @Test func relatedModelsJoinTheSchema() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Schema([Journey.self]), configurations: [store.configuration()])
        let names = Set(container.schema.entities.map(\.name))
        #expect(names.isSuperset(of: ["Journey", "Outing", "Lodging", "Label"]))
        let context = ModelContext(container)
        let journey = Journey(name: "only the root listed")
        context.insert(journey)
        journey.outings.append(Outing(title: "found"))
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: Schema([Journey.self]), configurations: [store.configuration()]))
        #expect(try reopened.fetch(FetchDescriptor<Outing>()).first?.journey?.name == "only the root listed")
    }
}

/// Rollback, merges from another context, and upserts, with relationships.
struct RelationshipLifecycleTests {
    let store = TemporaryStore()

    @Test(arguments: Backend.allCases) func rollbackRestoresBothSides(_ backend: Backend) throws {
        let context = ModelContext(try store.graphContainer())
        let first = Journey(name: "first")
        let second = Journey(name: "second")
        context.insert(first)
        context.insert(second)
        let outing = Outing(title: "moved", journey: first)
        context.insert(outing)
        try context.save()

        outing.journey = second
        #expect(second.outings.count == 1 && first.outings.isEmpty)
        context.rollback()
        #expect(outing.journey === first)
        #expect(first.outings.map(\.title) == ["moved"])
        #expect(second.outings.isEmpty)
        #expect(!context.hasChanges)
    }

    @Test(arguments: Backend.allCases) func anotherContextsRelinkIsMerged(_ backend: Backend) throws {
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let first = Journey(name: "first")
        let second = Journey(name: "second")
        context.insert(first)
        context.insert(second)
        _ = Outing(title: "o", journey: first)
        try context.save()
        #expect(first.outings.count == 1)

        let other = ModelContext(container)
        let outing = try #require(try other.fetch(FetchDescriptor<Outing>()).first)
        let target = try #require(try other.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.name == "second" })).first)
        outing.journey = target
        try other.save()

        context.processPendingChanges()
        #expect(first.outings.isEmpty)
        #expect(second.outings.map(\.title) == ["o"])
        #expect(second.outings.first?.journey === second)
    }
}

/// A model read from a context that no longer exists still loads what it had not loaded.
struct OutlivedContextTests {
    @Test(arguments: Backend.allCases) func relationshipsLoadAfterTheirContextIsGone(_ backend: Backend) throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.graphContainer())
            let journey = Journey(name: "kept")
            context.insert(journey)
            journey.outings = [Outing(title: "a"), Outing(title: "b")]
            try context.save()
        }
        let container = try store.graphContainer()
        let journeys = try ModelContext(container).fetch(FetchDescriptor<Journey>())
        #expect(journeys.first?.modelContext == nil, "the fetching context is gone")
        #expect(journeys.first?.outings.map(\.title) == ["a", "b"])
        #expect(journeys.first?.outings.first?.journey === journeys.first)
        #expect(journeys.first?.modelContext != nil, "a stand-in context of the same container took the model in")
    }
}

/// Prefetching loads the related models with the fetch; without it they load on first access.
struct PrefetchTimingTests {
    @Test(arguments: Backend.allCases) func prefetchedModelsAreLoadedByTheFetchItself(_ backend: Backend) throws {
        let store = TemporaryStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            for number in 0..<10 {
                let journey = Journey(name: "j\(number)")
                context.insert(journey)
                journey.outings = [Outing(title: "\(number)-a"), Outing(title: "\(number)-b")]
            }
            try context.save()
        }
        let prefetching = ModelContext(container)
        var descriptor = FetchDescriptor<Journey>()
        descriptor.relationshipKeyPathsForPrefetching = [\.outings]
        let prefetched = try prefetching.fetch(descriptor)
        let lazy = ModelContext(container)
        let unprefetched = try lazy.fetch(FetchDescriptor<Journey>())

        // Remove every outing behind the library's back: only what was already loaded survives.
        try container.sqliteStore().withConnection { try $0.execute("DELETE FROM \"Outing\"") }
        #expect(prefetched.allSatisfy { $0.outings.count == 2 }, "loaded by the fetch")
        #expect(unprefetched.allSatisfy { $0.outings.isEmpty }, "loaded on first access, after the rows were gone")
    }
}
