import Foundation
import Testing
@testable import OpenSwiftData

/// `#Index` creates SQLite indexes that fetches use, as `EXPLAIN QUERY PLAN` shows; relationship
/// lookups use the index every foreign key gets.
struct IndexTests {
    /// SQLite's plan for the statement a fetch runs.
    func queryPlan<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, in container: ModelContainer) throws -> String {
        let entity = try #require(container.schema.entity(for: T.self))
        let store = try container.sqliteStore()
        let layout = try store.layout(for: entity.name)
        let plan = PredicateTranslator.plan(for: descriptor, entity: entity, schema: container.schema)
        #expect(plan.isExact)
        let (clauses, arguments) = store.clauses(StoreFetch(entity: entity, filter: plan.filter, sort: plan.sort), layout: layout, ordered: true)
        return try store.withReader { connection in
            let statement = try connection.statement("EXPLAIN QUERY PLAN " + layout.selectPrefix + clauses)
            try statement.bind(arguments)
            defer { statement.reset() }
            var details: [String] = []
            while try statement.step() { details.append(statement._string(3)) }
            return details.joined(separator: "\n")
        }
    }

    @Test func aPredicateOnAnIndexedPropertyUsesItsIndex() throws {
        let store = TemporaryStore()
        let container = try store.container(Person.self)
        let byFamily = try queryPlan(FetchDescriptor<Person>(predicate: #Predicate { $0.familyName == "Lovelace" }), in: container)
        #expect(byFamily.contains("USING INDEX osd_index_Person_0"), "\(byFamily)")
        let byBoth = try queryPlan(FetchDescriptor<Person>(predicate: #Predicate { $0.givenName == "Ada" && $0.familyName == "Lovelace" }), in: container)
        #expect(byBoth.contains("USING INDEX osd_index_Person_"), "\(byBoth)")
        let unindexed = try queryPlan(FetchDescriptor<Person>(predicate: #Predicate { $0.age == 3 }), in: container)
        #expect(unindexed.contains("SCAN"), "\(unindexed)")
    }

    @Test func relationshipPredicatesUseTheForeignKeyIndex() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Schema(graphModels), configurations: [store.configuration()])
        let plan = try queryPlan(FetchDescriptor<Journey>(predicate: #Predicate { $0.outings.count > 3 }), in: container)
        #expect(plan.contains("osd_fk_Outing_journey"), "\(plan)")
    }
}

/// A model whose indexes are declared with their kinds (`.binary`, `.rtree`), as SwiftData allows.
@Model final class Flight {
    #Index<Flight>(.binary([\.number]), .rtree([\.latitude, \.longitude]), .binary([\.departure]))
    var number: String
    var latitude: Double
    var longitude: Double
    var departure: Date

    init(number: String, latitude: Double, longitude: Double, departure: Date) {
        self.number = number
        self.latitude = latitude
        self.longitude = longitude
        self.departure = departure
    }
}

extension IndexTests {
    /// Both kinds become indexes of the store, which fetches use, and a store reopened keeps them.
    /// A range of a `Double` or `Date` property is served by its index too, NaN staying out of it.
    @Test func indexesDeclaredWithTheirKindsAreCreatedAndUsed() throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self)
            #expect(container.schema.entity(for: Flight.self)?.indices == [["number"], ["latitude", "longitude"], ["departure"]])
            let context = ModelContext(container)
            context.insert(Flight(number: "LH 400", latitude: 50.03, longitude: 8.57, departure: Date(timeIntervalSinceReferenceDate: 1_000)))
            context.insert(Flight(number: "XX 1", latitude: .nan, longitude: .infinity, departure: Date(timeIntervalSinceReferenceDate: 5_000)))
            try context.save()
        }
        let container = try store.container(Flight.self)
        let byNumber = try queryPlan(FetchDescriptor<Flight>(predicate: #Predicate { $0.number == "LH 400" }), in: container)
        #expect(byNumber.contains("USING INDEX osd_index_Flight_0"), "\(byNumber)")
        let byPlace = try queryPlan(FetchDescriptor<Flight>(predicate: #Predicate { $0.latitude > 50 && $0.latitude < 51 }), in: container)
        #expect(byPlace.contains("USING INDEX osd_index_Flight_1"), "\(byPlace)")
        let flights = try ModelContext(container).fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.latitude > 50 && $0.latitude < 51 }))
        #expect(flights.map(\.number) == ["LH 400"], "NaN is neither above 50 nor below 51")
        let above = try ModelContext(container).fetch(FetchDescriptor<Flight>(predicate: #Predicate { 0 <= $0.latitude }))
        #expect(above.map(\.number) == ["LH 400"], "NaN is not at or above 0")
        let start = Date(timeIntervalSinceReferenceDate: 500), end = Date(timeIntervalSinceReferenceDate: 2_000)
        let byDeparture = try queryPlan(FetchDescriptor<Flight>(predicate: #Predicate { $0.departure >= start && $0.departure < end }), in: container)
        #expect(byDeparture.contains("USING INDEX osd_index_Flight_2"), "a date range is served by the index: \(byDeparture)")
    }
}
