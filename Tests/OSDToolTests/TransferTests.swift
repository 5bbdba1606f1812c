import Foundation
import OpenSwiftData
import Testing

@Suite("osd export and import")
struct TransferTests {
    /// An empty store of the fixture models.
    private func emptyStore(at path: String) throws {
        _ = try ModelContainer(for: Schema(ToolFixtures.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    @Test("JSON export then import into an empty store gives the same rows, identifiers and relationships")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("source.store")
        let target = directory.path("target.store")
        try ToolFixtures.makeStore(at: source)
        try emptyStore(at: target)
        let exported = try OSDTool.run("export", source, "--out", directory.path("first"))
        #expect(exported.status == 0, "\(exported.error)")
        let imported = try OSDTool.run("import", target, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("Voyage: 5 rows imported"))
        #expect(try OSDTool.run("export", target, "--out", directory.path("second")).status == 0)
        for model in ["Voyage", "Stop", "Sailor", "Flag"] {
            let first = Golden.contents(directory.path("first/\(model).json"))
            #expect(first != nil)
            #expect(first == Golden.contents(directory.path("second/\(model).json")), "\(model).json differs after a round trip")
        }
        // The app's models see the imported graph.
        let container = try ModelContainer(for: Schema(ToolFixtures.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: target)))
        let context = ModelContext(container)
        let voyages = try context.fetch(FetchDescriptor<Voyage>(sortBy: [SortDescriptor(\.rating)]))
        #expect(voyages.map(\.stops.count) == [0, 1, 2, 3, 4])
        let captains: [String?] = voyages.map { $0.captain?.email }
        let expectedCaptains: [String?] = ["ann@example.com", "ann@example.com", "ann@example.com", "bo@example.com", nil]
        #expect(captains == expectedCaptains)
        #expect(voyages[0].flags.map(\.name).sorted() == ["blue", "red"])
        #expect(voyages[2].score.isNaN)
        #expect(voyages[0].start.timeIntervalSinceReferenceDate == 800_000_000.125)
        // The import is one history transaction by "osd import".
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.last?.author == "osd import")
        let changeCount = history.last?.changes.count ?? 0
        #expect(changeCount == 19)
    }

    @Test("random values of every type survive export and import bit for bit")
    func randomValues() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("source.store")
        let target = directory.path("target.store")
        let container = try ModelContainer(for: Schema(ToolFixtures.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: source)))
        let context = ModelContext(container)
        RandomVoyages.insert(200, into: context)
        try context.save()
        try emptyStore(at: target)
        #expect(try OSDTool.run("export", source, "--out", directory.path("first")).status == 0)
        let imported = try OSDTool.run("import", target, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try OSDTool.run("export", target, "--out", directory.path("second")).status == 0)
        #expect(Golden.contents(directory.path("first/Voyage.json")) == Golden.contents(directory.path("second/Voyage.json")))
        // And the values the app reads back are the ones it wrote.
        let copied = ModelContext(try ModelContainer(for: Schema(ToolFixtures.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: target))))
        let original = try context.fetch(FetchDescriptor<Voyage>()).sorted { $0.name < $1.name }
        let copies = try copied.fetch(FetchDescriptor<Voyage>()).sorted { $0.name < $1.name }
        RandomVoyages.expectEqual(original, copies)
    }

    @Test("importing rows that break a uniqueness constraint changes nothing")
    func uniquenessConflict() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("store.store")
        try ToolFixtures.makeStore(at: store)
        #expect(try OSDTool.run("export", store, "--out", directory.path("out")).status == 0)
        let before = try OSDTool.run("export", store, "--out", directory.path("before"))
        let result = try OSDTool.run("import", store, "--from", directory.path("out"))
        #expect(result.status != 0)
        #expect(result.error.contains("same value for"), "\(result.error)")
        #expect(try OSDTool.run("export", store, "--out", directory.path("after")).output == before.output)
        #expect(try OSDTool.run("query", store, "Stop", "--count").output == "10\n")
    }

    @Test("a bad file is named by line and field, and nothing is imported", arguments: [
        ("{\"_id\":9}", "Sailor.json line 2: email is missing"),
        ("{\"_id\":9,\"name\":\"x\"}", "Sailor.json line 2: Sailor has no field name"),
        ("{\"_id\":9,\"email\":\"x\",\"mail\":1}", "Sailor has no field mail"),
        ("{\"_id\":9,\"email\":5}", "Sailor.json line 2: email must be a string"),
        ("{\"_id\":\"9\",\"email\":\"x\"}", "_id is missing or not an integer"),
        ("not json", "Sailor.json line 2: not a JSON object"),
        ("{\"_id\":9,\"email\":\"x\",\"voyages\":[1]}", "voyages is the inverse side"),
    ])
    func badFile(line: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("store.store")
        try emptyStore(at: store)
        try FileManager.default.createDirectory(atPath: directory.path("in"), withIntermediateDirectories: true)
        try Data("[\n\(line),\n{\"_id\":10,\"email\":\"ok@example.com\"}\n]\n".utf8).write(to: URL(fileURLWithPath: directory.path("in/Sailor.json")))
        let result = try OSDTool.run("import", store, "--from", directory.path("in"))
        #expect(result.status == 1)
        #expect(result.error.contains(message), "\(result.error)")
        #expect(try OSDTool.run("query", store, "Sailor", "--count").output == "0\n")
    }

    @Test("files with Windows line ends import line by line, and errors name the right line")
    func windowsLineEnds() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("store.store")
        try emptyStore(at: store)
        try FileManager.default.createDirectory(atPath: directory.path("in"), withIntermediateDirectories: true)
        let file = URL(fileURLWithPath: directory.path("in/Sailor.json"))
        try Data("[\r\n{\"_id\":1,\"email\":\"a@example.com\"},\r\n{\"_id\":2,\"email\":\"b@example.com\"}\r\n]\r\n".utf8).write(to: file)
        let imported = try OSDTool.run("import", store, "--from", directory.path("in"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try OSDTool.run("query", store, "Sailor", "--count").output == "2\n")

        try Data("[\r\n{\"_id\":3,\"email\":\"c@example.com\"},\r\n{\"_id\":4}\r\n]\r\n".utf8).write(to: file)
        let refused = try OSDTool.run("import", store, "--from", directory.path("in"))
        #expect(refused.status == 1)
        #expect(refused.error.contains("Sailor.json line 3: email is missing"), "\(refused.error)")
    }

    @Test("a relationship to a row that no file holds is refused")
    func danglingReference() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("store.store")
        try emptyStore(at: store)
        try FileManager.default.createDirectory(atPath: directory.path("in"), withIntermediateDirectories: true)
        try Data("[\n{\"_id\":1,\"title\":\"a\",\"voyage\":7}\n]\n".utf8).write(to: URL(fileURLWithPath: directory.path("in/Stop.json")))
        let result = try OSDTool.run("import", store, "--from", directory.path("in"))
        #expect(result.status == 1)
        #expect(result.error.contains("Stop.json line 2: voyage refers to Voyage 7"), "\(result.error)")
        #expect(try OSDTool.run("query", store, "Stop", "--count").output == "0\n")
    }

    @Test("importing into a store that has rows gives the new rows new identifiers")
    func remapsIdentifiers() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("store.store")
        try ToolFixtures.makeStore(at: store)
        try FileManager.default.createDirectory(atPath: directory.path("in"), withIntermediateDirectories: true)
        try Data("[\n{\"_id\":1,\"title\":\"new one\",\"voyage\":null}\n]\n".utf8).write(to: URL(fileURLWithPath: directory.path("in/Stop.json")))
        #expect(try OSDTool.run("import", store, "--from", directory.path("in")).status == 0)
        let result = try OSDTool.run("query", store, "Stop", "--where", "title == \"new one\"", "--format", "csv")
        #expect(result.output.split(separator: "\n").last == "11,new one,")
        #expect(try OSDTool.run("query", store, "Stop", "--where", "_id == 1", "--count").status == 1)
    }

    @Test("CSV export quotes what needs quoting and leaves nil fields empty")
    func csv() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("store.store")
        try ToolFixtures.makeStore(at: store)
        let result = try OSDTool.run("export", store, "--models", "Voyage,Flag", "--format", "csv", "--out", directory.path("csv"))
        #expect(result.status == 0, "\(result.error)")
        let voyages = try String(contentsOfFile: directory.path("csv/Voyage.csv"), encoding: .utf8).split(separator: "\n")
        #expect(voyages.first == "_id,name,start,rating,score,budget,code,notes,tags,isDone,photo,distance,site,captain")
        #expect(voyages[2].hasPrefix("2,Café tour,2026-05-10T06:13:20.125Z,2,1.5,,"))
        #expect(voyages[2].contains(",,\"[\"\"t1\"\"]\",false,,0,,1"))
        let flags = try String(contentsOfFile: directory.path("csv/Flag.csv"), encoding: .utf8)
        #expect(flags == "_id,name,voyages\n1,red,1 2\n2,blue,1\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path("csv/Stop.csv")))
    }
}

extension TransferTests {
    private func fleetContainer(_ path: String) throws -> ModelContainer {
        try ModelContainer(for: Ship.self, Port.self, CrewMember.self, Skill.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    @Test("a class hierarchy round-trips: keys shared by the base class and its subclasses stay unique")
    func hierarchyRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("fleet.store")
        let context = ModelContext(try fleetContainer(source))
        try ToolFixtures.saveFleet(in: context)
        let target = directory.path("copy.store")
        _ = try fleetContainer(target)
        #expect(try OSDTool.run("export", source, "--out", directory.path("first")).status == 0)
        let imported = try OSDTool.run("import", target, "--from", directory.path("first"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try OSDTool.run("export", target, "--out", directory.path("second")).status == 0)
        for model in ["Vessel", "Ship", "Port", "CrewMember", "Skill"] {
            #expect(Golden.contents(directory.path("first/\(model).json")) == Golden.contents(directory.path("second/\(model).json")), "\(model)")
        }
        let copy = ModelContext(try fleetContainer(target))
        let vessels = try copy.fetch(FetchDescriptor<Vessel>())
        #expect(vessels.count == 6)
        #expect(try copy.fetch(FetchDescriptor<Ship>()).map { $0.crew.count } == [1, 1, 1])
        #expect(try copy.fetch(FetchDescriptor<Port>()).first?.vessels.count == 6)

        // The same _id in the base class's file and a subclass's file is refused.
        let third = directory.path("third.store")
        _ = try fleetContainer(third)
        let vesselFile = directory.path("first/Vessel.json")
        let shipLine = try #require(try String(contentsOfFile: directory.path("first/Ship.json"), encoding: .utf8).split(separator: "\n").dropFirst().first)
        let shipID = try #require(shipLine.split(separator: ",").first?.split(separator: ":").last)
        let clash = "[\n{\"_id\":\(shipID),\"id\":\"\(UUID().uuidString)\",\"name\":\"clash\",\"launched\":\"2026-01-01T00:00:00Z\",\"homePort\":null}\n]\n"
        try Data(clash.utf8).write(to: URL(fileURLWithPath: vesselFile))
        let refused = try OSDTool.run("import", third, "--from", directory.path("first"))
        #expect(refused.status == 1)
        #expect(refused.error.contains("_id \(shipID) is also"), "\(refused.error)")
        #expect(try OSDTool.run("query", third, "Ship", "--count").output == "0\n")
    }
}
