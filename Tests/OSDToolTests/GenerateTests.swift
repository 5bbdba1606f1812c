import Foundation
import OpenSwiftData
import OSDKit
import Testing

@Suite("osd generate, diagram")
struct GenerateTests {
    private let fleet = Golden.path("Golden/fleet.schema.json")

    @Test("models: the generated file is the one compiled into these tests")
    func models() throws {
        let result = try OSDTool.run("generate", "models", "--schema", fleet)
        #expect(result.status == 0, "\(result.error)")
        try Golden.expect(result.output, equals: "Generated/FleetModels.swift")
        let swiftData = try OSDTool.run("generate", "models", "--schema", fleet, "--module", "SwiftData")
        try Golden.expect(swiftData.output, equals: "../SwiftDataModuleTests/Generated/FleetModels.swift")
    }

    @Test("the generated models store what the schema says, and osd schema gives the schema back")
    func schemaRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("fleet.store")
        let container = try ModelContainer(for: Ship.self, Port.self, CrewMember.self, Skill.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        let context = ModelContext(container)
        let port = Port(code: "OSL", country: "NO")
        let ship = Ship(name: "Fram", tonnage: 402)
        let crew = CrewMember(fullName: "Roald", languages: ["no", "en"])
        context.insert(port)
        context.insert(ship)
        ship.homePort = port
        ship.crew.append(crew)
        crew.skills.append(Skill(title: "navigation"))
        try context.save()
        let result = try OSDTool.run("schema", store)
        #expect(result.status == 0, "\(result.error)")
        let decoded = try JSONDecoder().decode(SchemaShape.self, from: Data(result.output.utf8))
        let expected = try JSONDecoder().decode(SchemaShape.self, from: Data(contentsOf: URL(fileURLWithPath: fleet)))
        #expect(decoded.normalized == expected.normalized)
        let verify = try OSDTool.run("verify", store)
        #expect(verify.status == 0 && verify.output.hasPrefix("ok:"), "\(verify.output)")
    }

    /// What a schema says apart from defaults (a store does not record them) and spelling.
    struct SchemaShape: Decodable, Equatable {
        struct Model: Decodable, Equatable {
            var name: String
            var superclass: String?
            var attributes: [Attribute]
            var relationships: [Relationship]?
            var unique: [[String]]?
            var indexes: [[String]]?
        }
        struct Attribute: Decodable, Equatable {
            var name: String
            var type: String
            var optional: Bool?
            var unique: Bool?
            var indexed: Bool?
            var originalName: String?
            var externalStorage: Bool?
        }
        struct Relationship: Decodable, Equatable {
            var name: String
            var destination: String
            var toMany: Bool?
            var deleteRule: String?
            var inverse: String?
        }
        var models: [Model]

        var normalized: [String] {
            models.sorted { $0.name < $1.name }.flatMap { model in
                ["model \(model.name): \(model.superclass ?? "-") unique \(model.unique ?? []) indexes \(model.indexes ?? [])"]
                    + model.attributes.map { attribute in
                        let optional = attribute.optional == true || attribute.type.hasSuffix("?")
                        let type = attribute.type.hasSuffix("?") ? String(attribute.type.dropLast()) : attribute.type
                        return "  \(attribute.name): \(type)\(optional ? "?" : "") unique \(attribute.unique ?? false) indexed \(attribute.indexed ?? false) was \(attribute.originalName ?? "-") external \(attribute.externalStorage ?? false)"
                    }
                    + (model.relationships ?? []).map { relationship in
                        "  \(relationship.name) -> \(relationship.destination) many \(relationship.toMany ?? false) \(relationship.deleteRule ?? "nullify") inverse \(relationship.inverse ?? "-")"
                    }.sorted()
            }
        }
    }

    @Test("the app's own Codable types and transformers go from a store to a schema to models that read the store")
    func appTypesRoundTrip() throws {
        PennantTransformer.register()
        let directory = try TemporaryDirectory()
        let store = URL(fileURLWithPath: directory.path("logbook.store"))
        do {
            let context = ModelContext(try ModelContainer(for: LogbookSource.Logbook.self, configurations: ModelConfiguration(url: store)))
            context.insert(LogbookSource.Logbook(
                title: "Fram", mood: .stormy, moods: [.calm, .stormy], position: Position(latitude: 78.2, longitude: 15.6),
                pennant: Pennant(code: "N"), spare: Pennant(code: "S")))
            try context.save()
        }
        let schema = try OSDTool.run("schema", store.path)
        #expect(schema.status == 0, "\(schema.error)")
        let document = try JSONDecoder().decode(SchemaDocument.self, from: Data(schema.output.utf8))
        let attributes = Dictionary(uniqueKeysWithValues: try #require(document.models.first).attributes.map { ($0.name, $0) })
        #expect(attributes["mood"]?.codable == true && attributes["moods"]?.codable == true && attributes["position"]?.codable == true)
        #expect(attributes["title"]?.codable == nil)
        #expect(attributes["pennant"]?.transformer == "PennantTransformer" && attributes["pennant"]?.codable == nil)
        #expect(attributes["spare"]?.transformerName == "LogbookSparePennant" && attributes["spare"]?.transformer == nil)

        let schemaFile = directory.path("logbook.schema.json")
        try Data(schema.output.utf8).write(to: URL(fileURLWithPath: schemaFile))
        let models = try OSDTool.run("generate", "models", "--schema", schemaFile)
        #expect(models.status == 0, "\(models.error)")
        try Golden.expect(models.output, equals: "Generated/LogbookModels.swift")

        // The generated class, compiled into these tests, opens the store as it is and reads it.
        let context = ModelContext(try ModelContainer(for: Logbook.self, configurations: ModelConfiguration(url: store)))
        let logbook = try #require(try context.fetch(FetchDescriptor<Logbook>()).first)
        #expect(logbook.title == "Fram" && logbook.mood == .stormy && logbook.moods == [.calm, .stormy])
        #expect(logbook.position == Position(latitude: 78.2, longitude: 15.6))
        #expect(logbook.pennant == Pennant(code: "N") && logbook.spare == Pennant(code: "S"))
        #expect(try context.fetchCount(FetchDescriptor<Logbook>(predicate: #Predicate { $0.title == "Fram" })) == 1)

        let coreData = try OSDTool.run("generate", "coredata", "--schema", schemaFile)
        #expect(coreData.status == 0, "\(coreData.error)")
        #expect(coreData.output.contains("valueTransformerName = NSStringFromClass(PennantTransformer.self)"))
        #expect(coreData.output.contains(#"valueTransformerName = "LogbookSparePennant""#))
        #expect(coreData.output.contains("@NSManaged public var mood: Mood?"))
        let diagram = try OSDTool.run("diagram", "--schema", store.path)
        #expect(diagram.status == 0 && diagram.output.contains("Mood[] moods"), "\(diagram.output)")
    }

    @Test("coredata: NSManagedObject subclasses and a model built in code")
    func coreData() throws {
        let result = try OSDTool.run("generate", "coredata", "--schema", fleet)
        #expect(result.status == 0, "\(result.error)")
        try Golden.expect(result.output, equals: "Golden/FleetModelBuilder.swift.txt")
    }

    @Test("migration: a lightweight plan, compiled into these tests, migrates a real store")
    func lightweightMigration() throws {
        let result = try OSDTool.run(
            "generate", "migration", "--old", Golden.path("Golden/notes-v1.json"), "--new", Golden.path("Golden/notes-v2.json"),
            "--old-name", "NotesV1", "--new-name", "NotesV2", "--plan-name", "NotesMigrationPlan")
        #expect(result.status == 0, "\(result.error)")
        try Golden.expect(result.output, equals: "Generated/NotesMigrationPlan.swift")
        #expect(!result.output.contains(".custom("))

        let directory = try TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.path("notes.store"))
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let folder = NotesV1.Folder(name: "Inbox")
            context.insert(folder)
            for index in 0..<3 {
                let note = NotesV1.Note(title: "note \(index)", body: "body \(index)", legacyFlag: index)
                folder.notes.append(note)
            }
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesMigrationPlan.self, configurations: ModelConfiguration(url: url))
        let notes = try ModelContext(container).fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.text) == ["body 0", "body 1", "body 2"])
        #expect(notes.allSatisfy { !$0.pinned && $0.summary == nil && $0.labels.isEmpty && $0.folder?.name == "Inbox" })
        let verify = try OSDTool.run("verify", url.path)
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test("migration: changes that need code give a custom stage naming each of them")
    func customMigration() throws {
        let result = try OSDTool.run(
            "generate", "migration", "--old", Golden.path("Golden/tasks-v1.json"), "--new", Golden.path("Golden/tasks-v2.json"),
            "--old-name", "ChoresV1", "--new-name", "ChoresV2", "--plan-name", "ChoresMigrationPlan")
        #expect(result.status == 0, "\(result.error)")
        try Golden.expect(result.output, equals: "Generated/ChoresMigrationPlan.swift")
        for change in [
            "TODO: Chore.priority changes type from Int to Double",
            "TODO: Chore.due stops being optional",
            "TODO: Chore.estimate is new, required and has no default",
            "TODO: Chore.title becomes unique",
            "// - Chore.owner is removed",
            "// - Chore.owners is new",
        ] {
            #expect(result.output.contains(change), "\(change)")
        }
        // The plan compiled into these tests names both versions and one custom stage.
        #expect(ChoresMigrationPlan.schemas.count == 2)
        guard case .custom = ChoresMigrationPlan.migrateChoresV1ToChoresV2 else {
            Issue.record("expected a custom stage")
            return
        }
    }

    @Test("diagram: a Mermaid erDiagram from a schema file or a store")
    func diagram() throws {
        let result = try OSDTool.run("diagram", "--schema", fleet)
        #expect(result.status == 0, "\(result.error)")
        try Golden.expect(result.output, equals: "Golden/fleet.mmd")
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let fromStore = try OSDTool.run("diagram", "--schema", store, "--out", directory.path("trips.mmd"))
        #expect(fromStore.status == 0, "\(fromStore.error)")
        let text = try String(contentsOfFile: directory.path("trips.mmd"), encoding: .utf8)
        #expect(text.contains("Voyage |o--o{ Stop : \"stops / voyage\""))
        #expect(text.contains("Voyage }o--o{ Flag : \"flags / voyages\""))
        let svg = try OSDTool.run("diagram", "--schema", fleet, "--format", "svg", "--out", directory.path("x.svg"))
        #expect(svg.status == 1 && svg.error.contains("mmdc"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("x.svg")))
    }

    @Test("a Codable type of the app's own may be qualified, generic, optional or in a collection",
          arguments: ["Trip.Status", "[Tag]", "[Tag?]", "[String: Tag]", "Set<Tag>", "Box<Int>", "Box<[Tag]>?", "Outer.Box<Inner.Tag, Int>"])
    func appTypeSpellings(type: String) throws {
        let directory = try TemporaryDirectory()
        let schema = directory.path("schema.json")
        try Data(#"{"models":[{"name":"A","attributes":[{"name":"x","type":"\#(type)","codable":true}]}]}"#.utf8).write(to: URL(fileURLWithPath: schema))
        let result = try OSDTool.run("generate", "models", "--schema", schema)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("var x: \(type)\n"), "\(result.output)")
    }

    @Test("a schema that cannot describe models is refused with the model and field named", arguments: [
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"Money"}]}]}"#, "A.x has unknown type \"Money\""),
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"Money","codable":true,"default":"0"}]}]}"#, "A.x: a default can be given for the standard types only"),
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"Mon ey","codable":true}]}]}"#, "A.x: \"Mon ey\" is not a Swift type name"),
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"[Money","codable":true}]}]}"#, "is not a Swift type name"),
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"Colour","transformer":"T","transformerName":"t"}]}]}"#, "A.x gives both transformer and transformerName"),
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"Colour","transformer":"T()"}]}]}"#, "A.x: transformer \"T()\" is not a class name"),
        (#"{"models":[{"name":"A","attributes":[],"relationships":[{"name":"b","destination":"B"}]}]}"#, "A.b points to B, which is not a model"),
        (#"{"models":[{"name":"A","attributes":[],"relationships":[{"name":"b","destination":"B","inverse":"a"}]},{"name":"B","attributes":[],"relationships":[{"name":"c","destination":"A"}]}]}"#, "A.b names inverse a, which B does not have"),
        (#"{"models":[{"name":"A","attributes":[],"relationships":[{"name":"b","destination":"B","inverse":"x"}]},{"name":"B","attributes":[],"relationships":[{"name":"x","destination":"B"}]}]}"#, "points to B, not A"),
        (#"{"models":[{"name":"A","attributes":[{"name":"d","type":"Date","default":5}]}]}"#, "A.d: the default"),
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"Int"},{"name":"x","type":"Int"}]}]}"#, "A.x appears twice"),
        (#"{"models":[{"name":"A","attributes":[{"name":"x","type":"Int"}],"unique":[["y"]]}]}"#, "A.unique names y"),
        (#"{"models":[{"name":"A","attributes":[{"name":"x"}]}]}"#, "type is missing at models[0].attributes[0]"),
        (#"{"models":[{"name":"A","#, "the JSON cannot be read"),
    ])
    func badSchema(json: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let schema = directory.path("schema.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: schema))
        for command in [["generate", "models"], ["generate", "coredata"], ["diagram"]] {
            let result = try OSDTool.run(command + ["--schema", schema, "--out", directory.path("out.swift")])
            #expect(result.status == 1, "\(command)")
            #expect(result.error.contains(message), "\(result.error)")
            #expect(!FileManager.default.fileExists(atPath: directory.path("out.swift")))
        }
    }
}
