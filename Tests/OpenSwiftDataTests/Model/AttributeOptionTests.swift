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

    /// `.ephemeral`: "Track changes to this property but do not persist." A change marks the
    /// model changed and is kept in memory, a save writes none of it, and a model fetched from
    /// the store reads the value a new model starts with.
    @Test func anEphemeralPropertyIsTrackedButNotStored() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Sketch.self))
        let sketch = Sketch(title: "draft")
        sketch.isSelected = true
        sketch.cursor = "line 3"
        sketch.zoom = 4
        context.insert(sketch)
        try context.save()
        let historyAfterInsert = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
        #expect(sketch.isSelected && sketch.cursor == "line 3" && sketch.zoom == 4, "the context keeps the values")

        // A change to it alone is tracked, and saving it writes nothing.
        sketch.isSelected = false
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == historyAfterInsert)
        sketch.isSelected = true
        sketch.title = "final"
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == historyAfterInsert + 1)
        guard case .update(let update as DefaultHistoryUpdate<Sketch>)? = history.last?.changes.first else {
            Issue.record("the last save is not an update of the sketch")
            return
        }
        #expect(update.containsAttribute(\Sketch.title))
        #expect(!update.containsAttribute(\Sketch.isSelected))
        #expect(update.updatedAttributes.count == 1)

        // The context's own model keeps its values through fetches, which match them in Swift.
        let selected = try context.fetch(FetchDescriptor<Sketch>(predicate: #Predicate { $0.isSelected }))
        #expect(selected.count == 1 && selected.first === sketch)
        #expect(try context.fetch(FetchDescriptor<Sketch>(sortBy: [SortDescriptor(\.zoom)])).map(\.title) == ["final"])

        // Another context, after reopening, reads what a new model starts with.
        let other = ModelContext(try store.container(Sketch.self))
        let fetched = try #require(try other.fetch(FetchDescriptor<Sketch>()).first)
        #expect(fetched.title == "final")
        #expect(!fetched.isSelected, "the declared initial value")
        #expect(fetched.cursor == nil)
        #expect(fetched.zoom == 0, "no initial value: the type's placeholder")
        #expect(try other.fetch(FetchDescriptor<Sketch>(predicate: #Predicate { $0.isSelected })).isEmpty)
        #expect(try other.fetchCount(FetchDescriptor<Sketch>(predicate: #Predicate { $0.zoom == 0 })) == 1)
    }

    /// An `.ephemeral` attribute with nothing to store in place of its value (no initial value,
    /// not optional, a type without an empty value) makes the save throw, naming it; nothing is
    /// written and the context keeps the model.
    @Test func anEphemeralAttributeWithNothingToStoreInItsPlaceIsRefused() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Ranked.self))
        context.insert(Ranked(name: "Ada", badge: RankBadge(text: "gold")))
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error == .modelValidationFailure)
        #expect(error?.reason?.contains("Ranked.badge") == true, "\(String(describing: error))")
        #expect(context.insertedModelsArray.count == 1)
        #expect(try ModelContext(try store.container(Ranked.self)).fetchCount(FetchDescriptor<Ranked>()) == 0)
    }
}

/// A value that refuses to decode from emptiness: it has no placeholder.
struct RankBadge: Codable {
    var text: String

    init(text: String) {
        self.text = text
    }

    init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
        guard !text.isEmpty else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an empty rank badge"))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// An `.ephemeral` attribute that is neither optional nor initialized, of a type without a
/// placeholder: there is nothing to store in its place.
@Model final class Ranked {
    var name: String
    @Attribute(.ephemeral) var badge: RankBadge

    init(name: String, badge: RankBadge) {
        self.name = name
        self.badge = badge
    }
}

/// A model with `.ephemeral` attributes: with an initial value, optional, and neither.
@Model final class Sketch {
    var title: String
    @Attribute(.ephemeral) var isSelected: Bool = false
    @Attribute(.ephemeral) var cursor: String?
    @Attribute(.ephemeral) var zoom: Int

    init(title: String) {
        self.title = title
        self.zoom = 1
    }
}
