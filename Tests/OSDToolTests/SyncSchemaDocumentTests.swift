import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import OSDKit
import Testing

/// What the sync server learns from a schema file about the values a new model must carry.
@Suite struct SyncSchemaDocumentTests {
    /// `osd schema` records, for each non-optional attribute of a store this version wrote, whether
    /// the model gives it an initial value; the sync server requires the others in new models.
    @Test func aStoresSchemaSaysWhichValuesANewModelRequires() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("fleet.store")
        let container = try ModelContainer(for: Ship.self, Port.self, CrewMember.self, Skill.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        try ModelContext(container).save()
        let result = try OSDTool.run("schema", store)
        #expect(result.status == 0, "\(result.error)")
        let file = directory.path("fleet.json")
        try result.output.write(toFile: file, atomically: true, encoding: .utf8)

        let schema = try SchemaDocument.load(from: file).syncSchema()
        func requires(_ model: String, _ property: String) -> Bool? {
            schema.entity(named: model)?.properties.first { $0.name == property }?.requiresValue
        }
        #expect(requires("Port", "code") == true)
        #expect(requires("Port", "fees") == false)      // an initial value
        #expect(requires("Port", "website") == false)   // optional
        #expect(requires("Ship", "name") == true)       // inherited, without one
        #expect(requires("Ship", "launched") == false)  // inherited, `Date.now`
        #expect(requires("CrewMember", "ship") == nil)  // a relationship: never required
        #expect(schema.missingRequiredValue(of: "Port", in: ["code": .value(.text("OSL"))]) == "country")
        #expect(schema.missingRequiredValue(of: "Port", in: ["code": .value(.text("OSL")), "country": .value(.text("NO"))]) == nil)
    }

    /// A schema file that does not say (written by hand, or from an older store's record) requires
    /// nothing beyond what it spells out: a `default` means no value is required.
    @Test func aSchemaWithoutInitialValuesRequiresNothing() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("notes.json")
        try #"{"models":[{"name":"Note","attributes":[{"name":"text","type":"String"},{"name":"done","type":"Bool","default":false},{"name":"key","type":"String","hasDefault":false}]}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let note = try #require(try SchemaDocument.load(from: file).syncSchema().entity(named: "Note"))
        #expect(note.properties.map(\.requiresValue) == [nil, false, true])
    }
}
