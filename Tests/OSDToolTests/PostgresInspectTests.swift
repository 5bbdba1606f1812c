import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// `osd inspect`, `osd schema` and `osd diagram` read a PostgreSQL store as they read a file:
/// from the schema its namespace records, changing nothing. Needs the server
/// `Scripts/with-postgres.sh` starts.
@Suite("osd on PostgreSQL", .enabled(if: ToolPostgres.isAvailable, ToolPostgres.skipMessage))
struct PostgresInspectTests {
    let url: String
    let name: String

    /// A store of the tool's fixtures in a fresh namespace.
    init() throws {
        url = try ToolPostgres.requiredURL()
        let configuration = try ToolPostgres.freshConfiguration("osdtool")
        name = configuration.name
        try ToolFixtures.makeStore(configuration)
    }

    @Test("inspect shows the models, their row counts and the history, as for a file")
    func inspect() throws {
        let result = try OSDTool.run("inspect", url, "--name", name)
        #expect(result.status == 0, "\(result.error)")
        for line in InspectTests.fixtureLines {
            #expect(result.output.contains(line + "\n"), "missing: \(line)")
        }
        #expect(result.output.contains("schema \(name)"), "the store line names the namespace")
        #expect(!result.output.contains("WAL"))

        let json = try OSDTool.run("inspect", url, "--name", name, "--json")
        #expect(json.status == 0, "\(json.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["namespace"] as? String == name)
        #expect(object["historyTransactions"] as? Int == 1)
        #expect((object["fileBytes"] as? Int ?? 0) > 0)
        let models = try #require(object["models"] as? [[String: Any]])
        #expect(models.map { $0["name"] as? String } == ["Voyage", "Stop", "Sailor", "Flag"])
        #expect(models.map { $0["rows"] as? Int } == [5, 10, 2, 2])
    }

    @Test("schema gives what a file of the same models gives, and diagram draws it")
    func schemaMatchesAFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("voyages.store")
        try ToolFixtures.makeStore(at: file)
        let fromServer = try OSDTool.run("schema", url, "--name", name)
        let fromFile = try OSDTool.run("schema", file)
        #expect(fromServer.status == 0, "\(fromServer.error)")
        #expect(!fromServer.output.isEmpty)
        #expect(fromServer.output == fromFile.output)
        let diagram = try OSDTool.run("diagram", "--schema", url, "--name", name)
        #expect(diagram.status == 0, "\(diagram.error)")
        #expect(diagram.output.contains("Voyage |o--o{ Stop : \"stops / voyage\""), "\(diagram.output)")

        // Reading changed nothing: the app opens the store and finds its history as it left it.
        let configuration = PostgresStoreConfiguration(name: name, url: try #require(URL(string: url)))
        let context = ModelContext(try ModelContainer(for: Schema(ToolFixtures.models), configurations: [configuration]))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
        #expect(try context.fetchCount(FetchDescriptor<Voyage>()) == 5)
    }

    @Test("a missing namespace fails with a message, and reading it creates nothing")
    func badInput() throws {
        let missing = try OSDTool.run("inspect", url, "--name", name + "_missing")
        #expect(missing.status != 0)
        #expect(missing.error.contains("no PostgreSQL schema \(name)_missing"), "\(missing.error)")
        let again = try OSDTool.run("schema", url, "--name", name + "_missing")
        #expect(again.status != 0, "reading did not create the namespace")
        let export = try OSDTool.run("export", url, "--name", name + "_missing", "--out", NSTemporaryDirectory() + "/osd-none")
        #expect(export.status != 0)
        #expect(export.error.contains("no PostgreSQL schema \(name)_missing"), "\(export.error)")
        let query = try OSDTool.run("query", url, "Voyage", "--name", name + "_missing")
        #expect(query.status != 0)
        #expect(query.error.contains("no PostgreSQL schema \(name)_missing"), "\(query.error)")
    }

    @Test("verify finds a sound store sound")
    func verifySound() throws {
        let result = try OSDTool.run("verify", url, "--name", name)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("ok: "), "\(result.output)")
        #expect(result.output.contains("schema \(name)"), "\(result.output)")
    }

    @Test("verify names what was damaged behind the store's back", arguments: [
        ("UPDATE {ns}.\"Stop\" SET voyage = 99999 WHERE _pk = (SELECT min(_pk) FROM {ns}.\"Stop\")", "1 Stop rows have a voyage that does not exist"),
        ("INSERT INTO {ns}.\"osd_link_Flag_voyages\" VALUES (1, 99999)", "1 pairs of Flag.voyages refer to rows that do not exist"),
        ("SELECT setval('{ns}.\"osd_keys_Stop\"', 3)", "the key sequence of Stop is at 3, behind the key 10 in use"),
        ("DROP SEQUENCE {ns}.\"osd_keys_Flag\" CASCADE", "the key sequence of Flag is missing"),
        ("UPDATE {ns}.osd_metadata SET value = '0' WHERE key = 'historyNext'", "the history counter is at 0, behind transaction 1"),
        ("ALTER TABLE {ns}.\"Voyage\" ALTER COLUMN rating TYPE text", "Voyage.rating is text, not bigint"),
        ("ALTER TABLE {ns}.\"Sailor\" DROP COLUMN email", "Sailor.email has no column"),
    ])
    func verifyDamage(sql: String, problem: String) throws {
        try PostgresTool.sql(sql.replacingOccurrences(of: "{ns}", with: "\"\(name)\""), url: url)
        let result = try OSDTool.run("verify", url, "--name", name)
        #expect(result.status == 1)
        #expect(result.output.contains(problem), "\(result.output)")
    }
}

/// `psql`, for tests that change a PostgreSQL store behind its back.
enum PostgresTool {
    static func sql(_ text: String, url: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", text]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "psql: \(message)")
    }
}
