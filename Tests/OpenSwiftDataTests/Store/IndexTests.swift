import Foundation
import Testing
@testable import OpenSwiftData

/// `#Index` creates SQLite indexes that fetches use, as `EXPLAIN QUERY PLAN` shows; relationship
/// lookups use the index every foreign key gets.
struct IndexTests {
    /// SQLite's plan for the statement a fetch runs.
    private func queryPlan<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, in container: ModelContainer) throws -> String {
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
