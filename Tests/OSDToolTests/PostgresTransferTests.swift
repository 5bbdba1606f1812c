import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// `osd export` and `osd import` on PostgreSQL: a store moves from a file to a server and back
/// with the same rows, keys and relationships, and an import never takes a key a running app
/// holds. Needs the server `Scripts/with-postgres.sh` starts.
@Suite("osd export and import on PostgreSQL", .enabled(if: ToolPostgres.isAvailable, ToolPostgres.skipMessage))
struct PostgresTransferTests {
    let url: String

    init() throws {
        url = try ToolPostgres.requiredURL()
    }

    /// A namespace no other test uses.
    private func freshName() -> String {
        ToolPostgres.freshName("osdmove")
    }

    /// The fixture models' container on the server, in the namespace `name` (created empty).
    private func container(_ name: String) throws -> ModelContainer {
        let configuration = PostgresStoreConfiguration(name: name, url: try #require(URL(string: url)))
        return try ModelContainer(for: Schema(ToolFixtures.models), configurations: [configuration])
    }

    private func fileContainer(_ path: String) throws -> ModelContainer {
        try ModelContainer(for: Schema(ToolFixtures.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    private func expectSameFiles(_ first: String, _ second: String, models: [String] = ["Voyage", "Stop", "Sailor", "Flag"]) {
        for model in models {
            let original = Golden.contents(first + "/\(model).json")
            #expect(original != nil, "\(model).json was not written")
            #expect(original == Golden.contents(second + "/\(model).json"), "\(model).json differs")
        }
    }

    @Test("an Apple-written store imports into a namespace not there yet as into a new store file; a failed one leaves none",
          .enabled(if: AppleStoreTests.fixtures != nil, "the Apple-written fixture stores are not beside this checkout"))
    func appleStoreIntoANewNamespace() throws {
        let directory = try TemporaryDirectory()
        let fixtures = try #require(AppleStoreTests.fixtures)
        for (folder, file, models) in [
            ("wire-store2-99", "store2-99-0.sqlite", ["ClientMessage", "Conversation", "User", "UserClient", "Connection"]),
            ("cartkit-coredata-v1", "CartStorage_v1.sqlite", ["CDCart", "CDCartItem"]),
        ] {
            let apple = directory.path(file)
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("\(folder)/\(file)").path, toPath: apple)
            let name = freshName()
            let imported = try OSDTool.run("import", "--from-apple", apple, "--into", url, "--name", name)
            #expect(imported.status == 0, "\(imported.error)")
            let intoFile = try OSDTool.run("import", "--from-apple", apple, "--into", directory.path(file + ".store"))
            #expect(intoFile.status == 0 && imported.output == intoFile.output, "\(intoFile.error)")
            #expect(try OSDTool.run("verify", url, "--name", name).status == 0)
            #expect(try OSDTool.run("export", url, "--name", name, "--out", directory.path(file + "-server")).status == 0)
            #expect(try OSDTool.run("export", directory.path(file + ".store"), "--out", directory.path(file + "-file")).status == 0)
            expectSameFiles(directory.path(file + "-server"), directory.path(file + "-file"), models: models)
            let again = try OSDTool.run("import", "--from-apple", apple, "--into", url, "--name", name)
            #expect(again.status == 0 && again.output.contains("before: nothing to do"), "\(again.output)")
        }

        // Values that are not the keyed archives the import is told they are: nothing is kept,
        // not even the namespace made for them.
        let name = freshName()
        let failed = try OSDTool.run(
            "import", "--from-apple", directory.path("CartStorage_v1.sqlite"), "--into", url, "--name", name, "--archived-as-json", "CDCart.metadataJSON")
        #expect(failed.status != 0 && failed.error.contains("metadataJSON"), "\(failed.error)")
        #expect(try PostgresStoreAccess.isVacant(url, name: name))
    }

    @Test("a store file moves to PostgreSQL and back with the same rows, keys and relationships")
    func fileToServerAndBack() throws {
        let directory = try TemporaryDirectory()
        try ToolFixtures.makeStore(at: directory.path("source.store"))
        let name = freshName()
        _ = try container(name)
        #expect(try OSDTool.run("export", directory.path("source.store"), "--out", directory.path("first")).status == 0)
        let imported = try OSDTool.run("import", url, "--name", name, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("Voyage: 5 rows imported"), "\(imported.output)")

        let exported = try OSDTool.run("export", url, "--name", name, "--out", directory.path("second"))
        #expect(exported.status == 0, "\(exported.error)")
        #expect(exported.output.contains("Stop: 10 rows"), "\(exported.output)")
        expectSameFiles(directory.path("first"), directory.path("second"))
        // The key sequences are past the kept keys, so the app's next saves cannot collide.
        let verified = try OSDTool.run("verify", url, "--name", name)
        #expect(verified.status == 0, "\(verified.output)")

        // And back into a file.
        _ = try fileContainer(directory.path("back.store"))
        #expect(try OSDTool.run("import", directory.path("back.store"), "--from", directory.path("second")).status == 0)
        #expect(try OSDTool.run("export", directory.path("back.store"), "--out", directory.path("third")).status == 0)
        expectSameFiles(directory.path("first"), directory.path("third"))

        // The app's models see the graph on the server, the import in its history, and save new
        // rows beside the imported ones.
        let context = ModelContext(try container(name))
        let voyages = try context.fetch(FetchDescriptor<Voyage>(sortBy: [SortDescriptor(\.rating)]))
        #expect(voyages.map(\.stops.count) == [0, 1, 2, 3, 4])
        let captains: [String?] = voyages.map { $0.captain?.email }
        #expect(captains == ["ann@example.com", "ann@example.com", "ann@example.com", "bo@example.com", nil])
        #expect(voyages[0].flags.map(\.name).sorted() == ["blue", "red"])
        #expect(voyages[2].score.isNaN)
        #expect(voyages[0].start.timeIntervalSinceReferenceDate == 800_000_000.125)
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.last?.author == "osd import")
        #expect(history.last?.changes.count == 19)
        for index in 0..<20 {
            let stop = Stop(title: "new \(index)")
            context.insert(stop)
            stop.voyage = voyages[0]
        }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 30)
    }

    @Test("random values of every type survive a trip through PostgreSQL bit for bit")
    func randomValues() throws {
        let directory = try TemporaryDirectory()
        let context = ModelContext(try fileContainer(directory.path("source.store")))
        RandomVoyages.insert(1_500, into: context, includingNul: false)
        try context.save()
        let name = freshName()
        _ = try container(name)
        #expect(try OSDTool.run("export", directory.path("source.store"), "--out", directory.path("first")).status == 0)
        let imported = try OSDTool.run("import", url, "--name", name, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try OSDTool.run("export", url, "--name", name, "--out", directory.path("second")).status == 0)
        expectSameFiles(directory.path("first"), directory.path("second"), models: ["Voyage"])

        let copied = ModelContext(try container(name))
        let original = try context.fetch(FetchDescriptor<Voyage>()).sorted { $0.name < $1.name }
        let copies = try copied.fetch(FetchDescriptor<Voyage>()).sorted { $0.name < $1.name }
        RandomVoyages.expectEqual(original, copies)
    }

    @Test("keys a running app drew ahead are never given to imported rows")
    func keysDrawnAhead() throws {
        let directory = try TemporaryDirectory()
        let source = ModelContext(try fileContainer(directory.path("source.store")))
        for index in 0..<400 { source.insert(Stop(title: "imported \(index)")) }
        try source.save()
        #expect(try OSDTool.run("export", directory.path("source.store"), "--models", "Stop", "--out", directory.path("first")).status == 0)
        let name = freshName()
        // The app saves two stops and deletes them: the table is empty again, and the app holds
        // the keys it drew ahead for its next saves.
        let app = ModelContext(try container(name))
        let early = [Stop(title: "a"), Stop(title: "b")]
        for stop in early { app.insert(stop) }
        try app.save()
        for stop in early { app.delete(stop) }
        try app.save()

        let imported = try OSDTool.run("import", url, "--name", name, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        // The app's next saves use the keys it holds, then new ones; none is an imported row's.
        for round in 0..<6 {
            for index in 0..<50 { app.insert(Stop(title: "app \(round).\(index)")) }
            try app.save()
        }
        let stops = try app.fetch(FetchDescriptor<Stop>())
        #expect(stops.count == 700)
        #expect(Set(stops.map(\.title)).count == 700)
        #expect(try app.fetchCount(FetchDescriptor<Stop>(predicate: #Predicate { $0.title.starts(with: "imported") })) == 400)
    }

    @Test("an import into a store with rows gives new keys, and one that breaks a uniqueness constraint changes nothing")
    func intoAStoreWithRows() throws {
        let directory = try TemporaryDirectory()
        let name = freshName()
        let server = try #require(URL(string: url))
        try ToolFixtures.makeStore(PostgresStoreConfiguration(name: name, url: server))
        #expect(try OSDTool.run("export", url, "--name", name, "--out", directory.path("before")).status == 0)

        let conflict = try OSDTool.run("import", url, "--name", name, "--from", directory.path("before"))
        #expect(conflict.status == 1)
        #expect(conflict.error.contains("same value for"), "\(conflict.error)")
        #expect(try OSDTool.run("export", url, "--name", name, "--out", directory.path("after")).status == 0)
        expectSameFiles(directory.path("before"), directory.path("after"))
        let context = ModelContext(try container(name))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)

        try FileManager.default.createDirectory(atPath: directory.path("in"), withIntermediateDirectories: true)
        try Data("[\n{\"_id\":1,\"title\":\"new one\",\"voyage\":3}\n]\n".utf8).write(to: URL(fileURLWithPath: directory.path("in/Stop.json")))
        let refused = try OSDTool.run("import", url, "--name", name, "--from", directory.path("in"))
        #expect(refused.status == 1, "Voyage 3 is in no imported file")
        #expect(refused.error.contains("Stop.json line 2: voyage refers to Voyage 3"), "\(refused.error)")
        try Data("[\n{\"_id\":1,\"title\":\"new one\",\"voyage\":null}\n]\n".utf8).write(to: URL(fileURLWithPath: directory.path("in/Stop.json")))
        let added = try OSDTool.run("import", url, "--name", name, "--from", directory.path("in"))
        #expect(added.status == 0, "\(added.error)")
        let stops = try context.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.title == "new one" }))
        #expect(stops.count == 1)
        #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 11)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.author == "osd import")
    }

    @Test("an export that fails part way leaves the files that were there, and no others")
    func failedExport() throws {
        let directory = try TemporaryDirectory()
        let name = freshName()
        try ToolFixtures.makeStore(PostgresStoreConfiguration(name: name, url: try #require(URL(string: url))))
        try FileManager.default.createDirectory(atPath: directory.path("out"), withIntermediateDirectories: true)
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: directory.path("out/Voyage.json")))
        // Voyage is exported before Stop, whose titles are no longer text.
        try PostgresTool.sql("ALTER TABLE \"\(name)\".\"Stop\" ALTER COLUMN title TYPE bytea USING convert_to(title, 'UTF8')", url: url)
        let result = try OSDTool.run("export", url, "--name", name, "--out", directory.path("out"))
        #expect(result.status == 1)
        #expect(result.error.contains("the stored value of title is not a String"), "\(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("out")) == ["Voyage.json"])
        #expect(try String(contentsOfFile: directory.path("out/Voyage.json"), encoding: .utf8) == "old\n")
    }

    @Test("a model without attributes moves to PostgreSQL and back")
    func modelWithoutAttributes() throws {
        let directory = try TemporaryDirectory()
        let file = try ModelContainer(for: Bare.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.path("bare.store"))))
        let context = ModelContext(file)
        for _ in 0..<3 { context.insert(Bare()) }
        try context.save()
        let name = freshName()
        let configuration = PostgresStoreConfiguration(name: name, url: try #require(URL(string: url)))
        _ = try ModelContainer(for: Bare.self, configurations: configuration)
        #expect(try OSDTool.run("export", directory.path("bare.store"), "--out", directory.path("first")).status == 0)
        let imported = try OSDTool.run("import", url, "--name", name, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try OSDTool.run("export", url, "--name", name, "--out", directory.path("second")).status == 0)
        expectSameFiles(directory.path("first"), directory.path("second"), models: ["Bare"])
        #expect(try String(contentsOfFile: directory.path("second/Bare.json"), encoding: .utf8) == "[\n{\"_id\":1},\n{\"_id\":2},\n{\"_id\":3}\n]\n")
    }

    @Test("text PostgreSQL cannot hold is refused by model and property, and nothing is imported")
    func nulInText() throws {
        let directory = try TemporaryDirectory()
        let name = freshName()
        let context = ModelContext(try container(name))
        try FileManager.default.createDirectory(atPath: directory.path("in"), withIntermediateDirectories: true)
        let lines = "[\n{\"_id\":1,\"email\":\"fine@example.com\"},\n{\"_id\":2,\"email\":\"a\\u0000b\"}\n]\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: directory.path("in/Sailor.json")))
        let result = try OSDTool.run("import", url, "--name", name, "--from", directory.path("in"))
        #expect(result.status == 1)
        #expect(result.error.contains("Sailor.json line 3: email: the text contains U+0000"), "\(result.error)")
        #expect(try context.fetchCount(FetchDescriptor<Sailor>()) == 0)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }

    @Test("a class hierarchy moves to PostgreSQL with its shared keys")
    func hierarchy() throws {
        let directory = try TemporaryDirectory()
        let models: [any PersistentModel.Type] = [Ship.self, Port.self, CrewMember.self, Skill.self]
        let context = ModelContext(try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.path("fleet.store")))))
        try ToolFixtures.saveFleet(in: context)
        let name = freshName()
        let configuration = PostgresStoreConfiguration(name: name, url: try #require(URL(string: url)))
        _ = try ModelContainer(for: Schema(models), configurations: [configuration])
        #expect(try OSDTool.run("export", directory.path("fleet.store"), "--out", directory.path("first")).status == 0)
        let imported = try OSDTool.run("import", url, "--name", name, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try OSDTool.run("export", url, "--name", name, "--out", directory.path("second")).status == 0)
        expectSameFiles(directory.path("first"), directory.path("second"), models: ["Vessel", "Ship", "Port", "CrewMember", "Skill"])

        let copy = ModelContext(try ModelContainer(for: Schema(models), configurations: [configuration]))
        #expect(try copy.fetch(FetchDescriptor<Vessel>()).count == 6)
        #expect(try copy.fetch(FetchDescriptor<Port>()).first?.vessels.count == 6)
        copy.insert(Ship(name: "after", tonnage: 1))
        copy.insert(Vessel(name: "after"))
        try copy.save()
        #expect(try copy.fetch(FetchDescriptor<Vessel>()).count == 8)
    }
}

/// A model with no attributes: its table is its keys.
@Model
final class Bare {
    init() {}
}
