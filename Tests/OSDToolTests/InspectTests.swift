import Foundation
import OpenSwiftData
import Testing

@Suite("osd inspect and schema")
struct InspectTests {
    @Test("inspect lists models, attributes, relationships, indexes and row counts")
    func inspectText() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let result = try OSDTool.run("inspect", store)
        #expect(result.status == 0, "\(result.error)")
        for line in Self.fixtureLines {
            #expect(result.output.contains(line + "\n"), "missing: \(line)")
        }
    }

    /// Lines `osd inspect` prints for the store of ``ToolFixtures``, whichever store holds it.
    static let fixtureLines = [
        "Format     1, schema version 1.0.0",
        "History    1 transactions",
        "Voyage — 5 rows",
        "  rating: Int  (indexed)",
        "  budget: Decimal?",
        "  tags: [String]",
        "  stops: [Stop]  (delete rule cascade, inverse voyage, the inverse's foreign key)",
        "  captain: Sailor?  (delete rule nullify, inverse voyages, foreign key column captain)",
        "  flags: [Flag]  (delete rule nullify, inverse voyages, link table osd_link_Flag_voyages)",
        "  #Unique(name, start)",
        "Stop — 10 rows",
        "  email: String  (unique)",
    ]

    @Test("inspect --json gives the same facts to machines")
    func inspectJSON() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let result = try OSDTool.run("inspect", store, "--json")
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["format"] as? Int == 1)
        #expect(object["historyTransactions"] as? Int == 1)
        #expect((object["fileBytes"] as? Int ?? 0) > 0)
        let models = try #require(object["models"] as? [[String: Any]])
        #expect(models.map { $0["name"] as? String } == ["Voyage", "Stop", "Sailor", "Flag"])
        #expect(models.map { $0["rows"] as? Int } == [5, 10, 2, 2])
        let relationships = try #require(models[0]["relationships"] as? [[String: Any]])
        #expect(relationships.first?["deleteRule"] as? String == "cascade")
        #expect(relationships.first?["toMany"] as? Bool == true)
    }

    @Test("a store whose record predates relationship details gets them when the app opens it")
    func olderRecordIsCompleted() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("old.store")
        try ToolFixtures.makeStore(at: store)
        // Write the record as older versions did: no relationships, no attribute types.
        let file = try StoreFile(path: store, writable: true)
        var record = file.schema
        for index in record.entities.indices {
            record.entities[index].relationships = nil
            for attribute in record.entities[index].attributes.indices { record.entities[index].attributes[attribute].type = nil }
        }
        try file.transaction { try file.run("UPDATE osd_metadata SET value = ? WHERE key = 'schema'", [.text(try record.json())]) }
        let before = try OSDTool.run("inspect", store)
        #expect(before.output.contains("predates relationship details"))
        #expect(before.output.contains("  captain: Int?\n"))
        _ = try ModelContainer(for: Schema(ToolFixtures.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        let after = try OSDTool.run("inspect", store)
        #expect(!after.output.contains("predates"))
        #expect(after.output.contains("  captain: Sailor?  (delete rule nullify"))
    }

    @Test("schema prints the store's schema in the brief's format, which the generators accept")
    func schema() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let result = try OSDTool.run("schema", store, "--json")
        #expect(result.status == 0, "\(result.error)")
        try Golden.expect(result.output, equals: "Golden/voyages.schema.json")
        try Data(result.output.utf8).write(to: URL(fileURLWithPath: directory.path("schema.json")))
        let models = try OSDTool.run("generate", "models", "--schema", directory.path("schema.json"))
        #expect(models.status == 0, "\(models.error)")
        #expect(models.output.contains("@Relationship(deleteRule: .cascade, inverse: \\Stop.voyage) var stops: [Stop] = []"))
        #expect(models.output.contains("#Unique<Voyage>([\\.name, \\.start])"))
    }
}
