import Foundation
import Testing
@testable import OpenSwiftData

/// Predicates across relationships run in SQL and select exactly what `predicate.evaluate` selects
/// on the same models (a differential test over a seeded graph, read back from a reopened store).
struct RelationshipPredicateTests {
    let store = TemporaryStore()

    func container(_ backend: Backend = .sqlite) throws -> ModelContainer { try store.graphContainer(backend) }

    /// 40 journeys (some with lodging), 200 outings (some without a journey), 6 labels, 30 members.
    func seed(_ backend: Backend) throws {
        var random = SeededGenerator(seed: 11)
        let context = ModelContext(try container(backend))
        let labels = ["red", "green", "blue", "free", "paid", "x-tra"].map(Label.init(name:))
        for label in labels { context.insert(label) }
        let journeys = (0..<40).map { Journey(name: "j\($0)") }
        for (number, journey) in journeys.enumerated() {
            context.insert(journey)
            if number % 3 == 0 { journey.lodging = Lodging(name: "inn\(number % 4)") }
        }
        for number in 0..<200 {
            let outing = Outing(title: number % 7 == 0 ? "x\(number)" : "o\(number)", cost: Int.random(in: 0...10, using: &random))
            context.insert(outing)
            if number % 9 != 0 { outing.journey = journeys[Int.random(in: 0..<journeys.count, using: &random)] }
            outing.labels = labels.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
        }
        let members = (0..<30).map { Member(name: "m\($0)") }
        for member in members {
            context.insert(member)
            member.following = members.filter { $0 !== member && Int.random(in: 0..<8, using: &random) == 0 }
        }
        try context.save()
    }

    @Test(arguments: Backend.allCases) func outingPredicatesMatchSwiftEvaluation(_ backend: Backend) throws {
        try seed(backend)
        let context = ModelContext(try container(backend))
        let all = try context.fetch(FetchDescriptor<Outing>())
        let someJourney = try #require(try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.name == "j5" })).first)
        let journeyID = someJourney.persistentModelID
        let red = try #require(try context.fetch(FetchDescriptor<Label>(predicate: #Predicate { $0.name == "red" })).first)
        let redID = red.persistentModelID
        let predicates: [(String, Predicate<Outing>)] = [
            ("to-one attribute", #Predicate { $0.journey?.name == "j3" }),
            ("to-one chain", #Predicate { $0.journey?.lodging?.name == "inn2" }),
            ("to-one nil", #Predicate { $0.journey == nil }),
            ("to-one not nil and attribute", #Predicate { $0.journey != nil && $0.cost > 5 }),
            ("captured identifier", #Predicate { $0.journey?.persistentModelID == journeyID }),
            ("own identifier", #Predicate { $0.persistentModelID != journeyID }),
            ("contains where", #Predicate { $0.labels.contains { $0.name == "red" } }),
            ("contains where with captured id", #Predicate { $0.labels.contains { $0.persistentModelID == redID } }),
            ("isEmpty", #Predicate { $0.labels.isEmpty }),
            ("count", #Predicate { $0.labels.count >= 2 }),
            ("allSatisfy", #Predicate { $0.labels.allSatisfy { $0.name != "red" } }),
            ("text through to-one", #Predicate { $0.cost > 3 && ($0.journey?.name.starts(with: "j1") ?? false) }),
            ("if let", #Predicate { if let journey = $0.journey { journey.name == "j7" } else { false } }),
        ]
        try check(predicates, all: all, context: context, entity: Outing.self, inSQL: Set(predicates.map(\.0)))
    }

    @Test(arguments: Backend.allCases) func journeyAndMemberPredicatesMatchSwiftEvaluation(_ backend: Backend) throws {
        try seed(backend)
        let context = ModelContext(try container(backend))
        let journeys = try context.fetch(FetchDescriptor<Journey>())
        let journeyPredicates: [(String, Predicate<Journey>)] = [
            ("to-many count", #Predicate { $0.outings.count > 5 }),
            ("to-many isEmpty", #Predicate { $0.outings.isEmpty }),
            ("to-many contains where", #Predicate { $0.outings.contains { $0.cost > 8 } }),
            ("to-many allSatisfy", #Predicate { $0.outings.allSatisfy { $0.cost < 7 } }),
            ("one-to-one keyless side nil", #Predicate { $0.lodging != nil }),
            ("one-to-one keyless side attribute", #Predicate { $0.lodging?.name == "inn1" }),
            ("nested contains", #Predicate { $0.outings.contains { $0.labels.contains { $0.name == "red" } } }),
            ("negated contains with text", #Predicate { !$0.outings.contains { $0.title.contains("x") } }),
        ]
        try check(journeyPredicates, all: journeys, context: context, entity: Journey.self, inSQL: Set(journeyPredicates.map(\.0)))

        let members = try context.fetch(FetchDescriptor<Member>())
        let memberPredicates: [(String, Predicate<Member>)] = [
            ("self-referential contains", #Predicate { $0.following.contains { $0.name == "m1" } }),
            ("inverse side count", #Predicate { $0.followers.count > 3 }),
            ("both sides", #Predicate { $0.followers.isEmpty || $0.following.allSatisfy { $0.name.starts(with: "m1") } }),
        ]
        try check(memberPredicates, all: members, context: context, entity: Member.self, inSQL: Set(memberPredicates.map(\.0)))
    }

    @Test(arguments: Backend.allCases) func sortingAcrossARelationshipMatchesSwift(_ backend: Backend) throws {
        try seed(backend)
        let context = ModelContext(try container(backend))
        let sorted = try context.fetch(FetchDescriptor<Outing>(
            predicate: #Predicate { $0.journey != nil },
            sortBy: [SortDescriptor(\.journey?.name), SortDescriptor(\.title)]))
        let names = sorted.map { "\($0.journey!.name) \($0.title)" }
        #expect(names == names.sorted { lhs, rhs in
            let l = lhs.split(separator: " "), r = rhs.split(separator: " ")
            return l[0] != r[0] ? l[0] < r[0] : l[1] < r[1]
        })
        #expect(sorted.count == (try context.fetchCount(FetchDescriptor<Outing>(predicate: #Predicate { $0.journey != nil }))))
        let schema = context.container.schema
        let plan = PredicateTranslator.plan(
            for: FetchDescriptor<Outing>(sortBy: [SortDescriptor(\.journey?.name, order: .reverse)]),
            entity: try #require(schema.entity(for: Outing.self)), schema: schema)
        #expect(plan.sortIsExact, "the sort runs in SQL")
        // With a page, so that the store's order alone decides which models come back.
        var page = FetchDescriptor<Outing>(sortBy: [SortDescriptor(\.journey?.name, order: .reverse), SortDescriptor(\.title)])
        page.fetchLimit = 25
        page.fetchOffset = 10
        let all = try context.fetch(FetchDescriptor<Outing>())
        let expected = all.sorted { lhs, rhs in
            let l = lhs.journey?.name, r = rhs.journey?.name
            if l != r { return (l ?? "") > (r ?? "") || (r == nil && l != nil) }
            return lhs.title < rhs.title
        }.dropFirst(10).prefix(25).map(\.title)
        #expect(try context.fetch(page).map(\.title) == Array(expected))
    }

    @Test(arguments: Backend.allCases) func pendingRelationshipChangesCount(_ backend: Backend) throws {
        try seed(backend)
        let context = ModelContext(try container(backend))
        let journey = try #require(try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.name == "j0" })).first)
        let unsaved = Outing(title: "pending", cost: 1)
        context.insert(unsaved)
        unsaved.journey = journey
        let matches = try context.fetch(FetchDescriptor<Outing>(predicate: #Predicate { $0.journey?.name == "j0" }))
        #expect(matches.contains { $0 === unsaved })
        #expect(matches.allSatisfy { $0.journey === journey })
    }

    private func check<M: PersistentModel>(
        _ predicates: [(String, Predicate<M>)], all: [M], context: ModelContext, entity: M.Type, inSQL: Set<String>
    ) throws {
        let schema = context.container.schema
        let described = try #require(schema.entity(for: M.self))
        for (name, predicate) in predicates {
            let expected = Set(all.filter { (try? predicate.evaluate($0)) ?? false }.map(\.persistentModelID))
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(\.persistentModelID)) == expected, "fetch: \(name)")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "fetchCount: \(name)")
            let plan = PredicateTranslator.plan(for: FetchDescriptor(predicate: predicate), entity: described, schema: schema)
            if inSQL.contains(name) { #expect(plan.isExact, "runs in SQL: \(name)") }
        }
        // The seeded graph makes the predicates selective: neither all nor none for most.
        let selective = predicates.filter { _, predicate in
            let count = all.filter { (try? predicate.evaluate($0)) ?? false }.count
            return count > 0 && count < all.count
        }
        #expect(selective.count >= predicates.count - 2)
    }
}
