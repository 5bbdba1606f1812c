import Foundation
import OpenSwiftData
import Testing

/// `osd history`'s text, its filters, and its errors.
@Suite("osd history's text and filters")
struct HistoryListingTests {
    static var models: [any PersistentModel.Type] { [Ship.self, Port.self, CrewMember.self, Skill.self] }

    /// A fleet store with three saves: the fleet by "setup", two renames by "app", a deletion by no
    /// author.
    static func fleetStore(at path: String) throws {
        let context = ModelContext(try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: URL(fileURLWithPath: path))))
        context.author = "setup"
        try ToolFixtures.saveFleet(in: context)
        context.author = "app"
        let ships = try context.fetch(FetchDescriptor<Ship>(sortBy: [SortDescriptor(\.name)]))
        ships[0].name = "renamed"
        ships[0].tonnage = 9
        let vessels = try context.fetch(FetchDescriptor<Vessel>(predicate: #Predicate { $0.name == "vessel 1" }))
        vessels[0].name = "also renamed"
        try context.save()
        context.author = nil
        let skills = try context.fetch(FetchDescriptor<Skill>())
        context.delete(skills[0])
        try context.save()
    }

    /// `osd history` with `arguments` after the store, its output with times and processes masked.
    static func listing(_ path: String, _ arguments: String...) throws -> String {
        let result = try OSDTool.run(["history", path] + arguments)
        #expect(result.status == 0, "\(result.error)")
        return result.output
            .replacingOccurrences(of: " at [0-9T:.-]+Z", with: " at T", options: .regularExpression)
            .replacingOccurrences(of: " from \\S+ \\(process [0-9]+\\)", with: " from P", options: .regularExpression)
    }

    @Test("text: one heading per save, each kind by model and key, runs of keys as ranges, updates with their properties")
    func text() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fleet.store")
        try Self.fleetStore(at: path)
        let expected = """
            transaction 1 at T by "setup" from P
              insert Port 1
              insert Vessel 1, 3, 5
              insert Ship 2, 4, 6
              insert CrewMember 1-3
              insert Skill 1-3
            transaction 2 at T by "app" from P
              update Ship 2: name, tonnage
              update Vessel 3: name
            transaction 3 at T from P
              update CrewMember 1: skills
              delete Skill 1

            """
        #expect(try Self.listing(path) == expected)
        // The heading's time is the save's, to the digit the store holds.
        let raw = try OSDTool.run("history", path, "--last", "1").output
        #expect(raw.range(of: "^transaction 3 at 20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z from ", options: .regularExpression) != nil, "\(raw)")
    }

    @Test("filters: after a transaction, the first or last few, by author, by model with its subclasses")
    func filters() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fleet.store")
        try Self.fleetStore(at: path)
        #expect(try Self.listing(path, "--author", "app") == "transaction 2 at T by \"app\" from P\n  update Ship 2: name, tonnage\n  update Vessel 3: name\n")
        #expect(try Self.listing(path, "--author", "nobody") == "")
        #expect(try Self.listing(path, "--model", "Vessel") == """
            transaction 1 at T by "setup" from P
              insert Vessel 1, 3, 5
              insert Ship 2, 4, 6
            transaction 2 at T by "app" from P
              update Ship 2: name, tonnage
              update Vessel 3: name

            """)
        #expect(try Self.listing(path, "--model", "Ship") == """
            transaction 1 at T by "setup" from P
              insert Ship 2, 4, 6
            transaction 2 at T by "app" from P
              update Ship 2: name, tonnage

            """)
        #expect(try Self.listing(path, "--after", "1", "--limit", "1").hasPrefix("transaction 2 "))
        #expect(try Self.listing(path, "--after", "1", "--limit", "1").contains("transaction 3") == false)
        #expect(try Self.listing(path, "--last", "1").hasPrefix("transaction 3 "))
        #expect(try Self.listing(path, "--last", "2", "--model", "Skill").components(separatedBy: "transaction ").count == 3)
        #expect(try Self.listing(path, "--last", "0") == "")
        #expect(try Self.listing(path, "--after", "3") == "")
        let json = try OSDTool.run("history", path, "--json", "--after", "2").output
        #expect(json.hasPrefix("[\n{\"transaction\":3,") && json.hasSuffix("]}\n]\n"), "\(json)")
        #expect(json.contains(#""author":null"#))
        #expect(json.contains(#"{"kind":"update","model":"CrewMember","_id":1,"properties":["skills"]}"#))
        #expect(json.contains(#"{"kind":"delete","model":"Skill","_id":1}"#))
        #expect(try OSDTool.run("history", path, "--json", "--after", "3").output == "[\n]\n")
    }

    @Test("bad arguments are refused with a message and status 1")
    func badArguments() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fleet.store")
        try Self.fleetStore(at: path)
        let cases: [([String], String)] = [
            (["--limit", "1", "--last", "1"], "--limit and --last cannot be combined"),
            (["--limit=-1"], "0 or more"),
            (["--model", "Boat"], "no model named \"Boat\"; its models are CrewMember, Port, Ship, Skill, Vessel"),
        ]
        for (arguments, message) in cases {
            let result = try OSDTool.run(["history", path] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.error.contains(message), "\(arguments): \(result.error)")
            #expect(result.output.isEmpty)
        }
        let missing = try OSDTool.run("history", directory.path("none.store"))
        #expect(missing.status == 1 && missing.error.contains("There is no store at"))
    }

    @Test("updates saved before a migration name the properties of their time")
    func acrossAMigration() throws {
        let directory = try TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.path("notes.store"))
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: ModelConfiguration(url: url)))
            let note = NotesV1.Note(title: "a", body: "b")
            context.insert(note)
            try context.save()
            note.legacyFlag = 1      // removed in V2, where `pinned` takes its place in the list
            try context.save()
            note.body = "c"          // renamed `text` in V2
            try context.save()
        }
        let context = ModelContext(try ModelContainer(
            for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesMigrationPlan.self, configurations: ModelConfiguration(url: url)))
        let note = try #require(try context.fetch(FetchDescriptor<NotesV2.Note>()).first)
        note.pinned = true
        try context.save()
        note.text = "d"
        try context.save()
        let updates = try Self.listing(url.path).split(separator: "\n").filter { $0.contains("update") }
        #expect(updates == ["  update Note 1: legacyFlag", "  update Note 1: body", "  update Note 1: pinned", "  update Note 1: text"])
    }

    @Test("a store written before the property lists were recorded shows an update's properties by position")
    func beforeTheRecord() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fleet.store")
        try Self.fleetStore(at: path)
        let file = try StoreFile(path: path, writable: true)
        try file.transaction { try file.run("DELETE FROM osd_metadata WHERE key = 'historyFields'") }
        let updates = try Self.listing(path, "--model", "Ship").split(separator: "\n").filter { $0.contains("update") }
        #expect(updates.count == 1)
        #expect(updates.first?.hasPrefix("  update Ship 2: #") == true, "\(updates)")
        #expect(updates.first?.components(separatedBy: "#").count == 3, "two properties: \(updates)")
    }

    @Test("--follow prints the listing, then each save of another process as it lands, with its filters")
    func follow() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fleet.store")
        try Self.fleetStore(at: path)
        let context = ModelContext(try ModelContainer(for: Schema(Self.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: path))))
        let everything = try RunningTool(["history", path, "--follow", "--last", "1"])
        let ships = try RunningTool(["history", path, "--follow", "--last", "0", "--model", "Ship", "--json"])
        #expect(everything.waitForOutput { $0.contains("transaction 3 ") })
        context.author = "later"
        context.insert(Port(code: "BGO", country: "NO"))
        try context.save()
        #expect(everything.waitForOutput { $0.contains("transaction 4 ") && $0.contains("  insert Port 2") }, "\(everything.output)")
        let ship = try #require(try context.fetch(FetchDescriptor<Ship>()).first)
        ship.tonnage = 77
        try context.save()
        #expect(everything.waitForOutput { $0.contains("transaction 5 ") }, "\(everything.output)")
        #expect(ships.waitForOutput { $0.contains(#""transaction":5"#) }, "\(ships.output)")
        #expect(everything.isRunning && ships.isRunning)
        everything.stop()
        ships.stop()
        // The listing began at transaction 3, and each transaction was printed once.
        #expect(!everything.output.contains("transaction 2 "))
        #expect(everything.output.components(separatedBy: "transaction 4 ").count == 2)
        // Only the ship's update, one JSON object on one line, no array.
        let lines = ships.output.split(separator: "\n")
        #expect(lines.count == 1, "\(ships.output)")
        #expect(lines.first?.hasPrefix(#"{"transaction":5,"#) == true)
        #expect(lines.first?.contains(#""properties":["tonnage"]"#) == true)
        let refused = try OSDTool.run("history", path, "--follow", "--limit", "2")
        #expect(refused.status == 1 && refused.error.contains("--follow cannot be combined with --limit"))
    }
}
