import Foundation
import Testing
import OpenSwiftData

/// `@Attribute` options are accepted, recorded in the schema, and their values round-trip.
@Suite struct AttributeOptionTests {
    @Test func everyOptionIsRecordedInTheSchema() throws {
        let entity = try #require(Schema([Gadget.self]).entity(for: Gadget.self))
        func options(_ name: String) -> [Schema.Attribute.Option] {
            entity.attributes.first { $0.name == name }?.options ?? []
        }
        #expect(options("serial").contains(.unique))
        #expect(options("serial").contains(.spotlight))
        #expect(options("owner").contains(.preserveValueOnDeletion))
        #expect(options("secret").contains(.allowsCloudEncryption))
        #expect(options("lastSeen").contains(.ephemeral))
        #expect(options("photo").contains(.externalStorage))
        #expect(options("settings") == [.codable])
        #expect(entity.attributes.first { $0.name == "name" }?.originalName == "title")
        #expect(entity.uniquenessConstraints == [["serial"]])
    }

    @Test func valuesOfEveryOptionRoundTrip() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Gadget.self))
        let gadget = Gadget(serial: "G-1", owner: "Ada", secret: "s3cret", color: Color(red: 1, green: 0.5, blue: 0), name: "Lamp")
        gadget.accent = Color(red: 0, green: 0, blue: 1)
        gadget.lastSeen = Date(timeIntervalSinceReferenceDate: 42)
        gadget.photo = Data([0xFF, 0xD8])
        gadget.settings = GadgetSettings(mode: .boost, levels: [3, 1, 2])
        context.insert(gadget)
        context.insert(Gadget(serial: "G-2", owner: "Bo", secret: "", color: Color(red: 0, green: 0, blue: 0), name: "Fan"))
        try context.save()

        let reopened = ModelContext(try store.container(Gadget.self))
        let fetched = try #require(try reopened.fetch(FetchDescriptor<Gadget>(sortBy: [SortDescriptor(\.serial)])).first)
        #expect(fetched.serial == "G-1")
        #expect(fetched.owner == "Ada")
        #expect(fetched.secret == "s3cret")
        #expect(fetched.color == Color(red: 1, green: 0.5, blue: 0))
        #expect(fetched.accent == Color(red: 0, green: 0, blue: 1))
        #expect(fetched.name == "Lamp")
        #expect(fetched.photo == Data([0xFF, 0xD8]))
        #expect(fetched.settings == GadgetSettings(mode: .boost, levels: [3, 1, 2]))
        // SwiftData refuses predicates on a `.codable` property; OpenSwiftData evaluates them.
        let boost = GadgetSettings.Mode.boost
        let boosted = try reopened.fetch(FetchDescriptor<Gadget>(predicate: #Predicate { $0.settings.mode == boost }))
        #expect(boosted.map(\.serial) == ["G-1"])
    }
}
