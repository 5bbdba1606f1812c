import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// `osd query` on a PostgreSQL store: the same language, planned over the schema the namespace
/// records and compiled by the store's own compiler, selects what its Swift meaning selects, and
/// sorts and pages as on a file. Needs the server `Scripts/with-postgres.sh` starts.
@Suite("osd query on PostgreSQL", .enabled(if: ToolPostgres.isAvailable, ToolPostgres.skipMessage))
struct PostgresQueryTests {
    let url: String

    init() throws {
        url = try ToolPostgres.requiredURL()
    }

    /// A configuration of a fresh namespace on the test server.
    private func freshConfiguration() throws -> PostgresStoreConfiguration {
        try ToolPostgres.freshConfiguration("osdquery")
    }

    /// Whether an expression uses a text function the PostgreSQL store runs in Swift.
    private static func usesSwiftTextFunction(_ text: String) -> Bool {
        text.contains(".contains(\"") || text.contains(".starts(with:") || text.contains("name.count")
    }

    @Test("random expressions select exactly the voyages their Swift meaning selects; text functions are refused")
    func differential() throws {
        var generator = SystemRandomNumberGenerator()
        let configuration = try freshConfiguration()
        let voyages = try QueryTests.makeRandomStore(configuration, using: &generator).fetch(FetchDescriptor<Voyage>())
        let formatter = ISO8601DateFormatter()
        var conditions = QueryTests.atoms
        for _ in 0..<40 { conditions.append(QueryTests.randomCondition(depth: 3, using: &generator)) }
        var compared = 0
        for condition in conditions {
            let result = try OSDTool.run("query", url, "Voyage", "--name", configuration.name, "--where", condition.text, "--format", "csv")
            if Self.usesSwiftTextFunction(condition.text) {
                #expect(result.status == 1, "\(condition.text)")
                #expect(result.error.contains("Character-based text functions"), "\(condition.text): \(result.error)")
                continue
            }
            #expect(result.status == 0, "\(condition.text): \(result.error)")
            QueryTests.expectSelection(result.output, of: condition, among: voyages, formatter: formatter)
            compared += 1
        }
        #expect(compared > 40, "most atoms run on PostgreSQL")
    }

    @Test("sorting, limits, offsets, counts and formats give what the same store in a file gives")
    func sameOutputAsAFile() throws {
        let configuration = try freshConfiguration()
        try ToolFixtures.makeStore(configuration)
        let directory = try TemporaryDirectory()
        let file = directory.path("trips.store")
        try ToolFixtures.makeStore(at: file)
        let commands: [[String]] = [
            ["Voyage", "--sort", "name", "--format", "csv"],
            ["Voyage", "--sort", "captain.email:desc", "--sort", "rating", "--limit", "2", "--offset", "1", "--format", "csv"],
            ["Voyage", "--where", "rating > 2", "--count"],
            ["Voyage", "--where", "rating > 2", "--count", "--limit", "2"],
            ["Stop", "--where", "voyage.name == \"Oslo\"", "--format", "json"],
            ["Voyage", "--where", "stops.count >= 1 && flags.contains(where: name == \"red\")", "--sort", "start:desc"],
            ["Voyage", "--where", "captain == nil || captain.email < \"b\"", "--format", "json"],
            ["Voyage", "--offset", "10"],
        ]
        for command in commands {
            let onServer = try OSDTool.run(["query", url, "--name", configuration.name] + command)
            let inFile = try OSDTool.run(["query", file] + command)
            #expect(onServer.status == 0 && inFile.status == 0, "\(command): \(onServer.error) \(inFile.error)")
            // The fixtures draw a new UUID for each voyage's code in each store.
            #expect(Self.maskingUUIDs(onServer.output) == Self.maskingUUIDs(inFile.output), "\(command)")
        }
    }

    private static func maskingUUIDs(_ text: String) -> String {
        text.replacingOccurrences(of: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", with: "UUID", options: .regularExpression)
    }

    @Test("a class hierarchy's models query as in a file: the base class's rows and each subclass's")
    func hierarchy() throws {
        let directory = try TemporaryDirectory()
        let models: [any PersistentModel.Type] = [Ship.self, Port.self, CrewMember.self, Skill.self]
        let file = directory.path("fleet.store")
        try ToolFixtures.saveFleet(in: ModelContext(try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: URL(fileURLWithPath: file)))))
        let configuration = try freshConfiguration()
        _ = try ModelContainer(for: Schema(models), configurations: [configuration])
        #expect(try OSDTool.run("export", file, "--out", directory.path("rows")).status == 0)
        #expect(try OSDTool.run("import", url, "--name", configuration.name, "--from", directory.path("rows")).status == 0)
        let commands: [[String]] = [
            ["Vessel", "--sort", "name:desc", "--format", "csv"],
            ["Ship", "--where", "tonnage > 100 || crew.count >= 1", "--sort", "homePort.code", "--format", "json"],
            ["Vessel", "--where", "homePort.fees > \"10\"", "--count"],
            ["CrewMember", "--where", "ship.tonnage >= 0 && certified == false", "--format", "csv"],
        ]
        for command in commands {
            let onServer = try OSDTool.run(["query", url, "--name", configuration.name] + command)
            let inFile = try OSDTool.run(["query", file] + command)
            #expect(onServer.status == 0 && inFile.status == 0, "\(command): \(onServer.error) \(inFile.error)")
            #expect(onServer.output == inFile.output, "\(command)")
        }
    }

    @Test("more rows than one page come whole and in order")
    func manyRows() throws {
        let configuration = try freshConfiguration()
        let context = ModelContext(try ModelContainer(for: Schema(ToolFixtures.models), configurations: [configuration]))
        for index in 0..<2_500 { context.insert(Flag(name: String(format: "flag %04d", 2_499 - index))) }
        try context.save()
        let result = try OSDTool.run("query", url, "Flag", "--name", configuration.name, "--sort", "name", "--where", "name >= \"flag 0100\"", "--format", "csv")
        #expect(result.status == 0, "\(result.error)")
        let names = result.output.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[1]) }
        #expect(names == (100..<2_500).map { String(format: "flag %04d", $0) })
    }
}
