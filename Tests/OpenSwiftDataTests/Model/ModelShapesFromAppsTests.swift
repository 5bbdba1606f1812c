import Foundation
import Testing
import OpenSwiftData

// Model shapes taken from public SwiftData apps that `@Model` once rejected.

/// A protocol listed first in a model's inheritance clause (a wine app's `TastingNote`).
protocol TastingNote {
    var rating: Int { get }
}

@Model
final class WineTastingNote: TastingNote {
    var wine: String
    var rating: Int
    init(wine: String, rating: Int) { self.wine = wine; self.rating = rating }
}

/// A protocol that refines `PersistentModel` (a resource library's `IdentifiableSwiftDataObject`).
protocol IdentifiableSwiftDataObject: PersistentModel {
    var identifier: String { get }
}

@Model
class SwiftResource: IdentifiableSwiftDataObject {
    var identifier: String
    var title: String
    init(identifier: String, title: String) { self.identifier = identifier; self.title = title }
}

/// A subclass of a model whose root lists a protocol first.
@Model
final class SwiftVideo: SwiftResource {
    var minutes: Int
    init(identifier: String, title: String, minutes: Int) {
        self.minutes = minutes
        super.init(identifier: identifier, title: title)
    }
}

/// `@Transient` on a computed property, and implicitly unwrapped optionals.
@Model
final class Setting {
    var key: String!
    var value: Data!
    var isAvailable: Bool = true
    @Transient var isNotAvailable: Bool { isAvailable == false }
    init(key: String, value: Data? = nil) { self.key = key; self.value = value }
}

@Suite struct ModelShapesFromAppsTests {
    /// A protocol first in the inheritance clause is a conformance, not a superclass.
    @Test func aProtocolListedFirstIsAConformance() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(WineTastingNote.self))
        let note = WineTastingNote(wine: "Rioja", rating: 4)
        context.insert(note)
        try context.save()
        note.rating = 5
        try context.save()

        let reopened = ModelContext(try store.container(WineTastingNote.self))
        let fetched = try reopened.fetch(FetchDescriptor<WineTastingNote>(predicate: #Predicate { $0.rating > 4 }))
        #expect(fetched.map(\.wine) == ["Rioja"])
        let asProtocol: any TastingNote = try #require(fetched.first)
        #expect(asProtocol.rating == 5)
        #expect(WineTastingNote.schemaMetadata.map(\.name) == ["wine", "rating"])
    }

    /// A protocol that refines `PersistentModel`, and a subclass of the class that adopts it.
    @Test func aProtocolRefiningPersistentModelAndASubclassOfItsAdopter() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(SwiftResource.self, SwiftVideo.self))
        context.insert(SwiftResource(identifier: "r1", title: "Guide"))
        context.insert(SwiftVideo(identifier: "v1", title: "Talk", minutes: 40))
        try context.save()

        let reopened = ModelContext(try store.container(SwiftResource.self, SwiftVideo.self))
        let all = try reopened.fetch(FetchDescriptor<SwiftResource>(sortBy: [SortDescriptor(\.identifier)]))
        #expect(all.map(\.identifier) == ["r1", "v1"])
        let video = try #require(all.last as? SwiftVideo)
        #expect(video.minutes == 40)
        video.title = "Keynote"
        try reopened.save()
        let again = ModelContext(try store.container(SwiftResource.self, SwiftVideo.self))
        #expect(try again.fetch(FetchDescriptor<SwiftVideo>()).map(\.title) == ["Keynote"])
    }

    /// `@Transient` computed properties are left alone; implicitly unwrapped optionals are stored.
    @Test func transientComputedPropertiesAndImplicitlyUnwrappedOptionals() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Setting.self))
        let setting = Setting(key: "theme", value: Data([1, 2, 3]))
        context.insert(setting)
        context.insert(Setting(key: "empty"))
        try context.save()
        setting.isAvailable = false
        try context.save()
        #expect(Setting.schemaMetadata.map(\.name) == ["key", "value", "isAvailable"])

        let reopened = ModelContext(try store.container(Setting.self))
        let fetched = try reopened.fetch(FetchDescriptor<Setting>(sortBy: [SortDescriptor(\.key)]))
        #expect(fetched.map(\.key) == ["empty", "theme"])
        #expect(fetched[0].value == nil)
        #expect(fetched[1].value == Data([1, 2, 3]))
        #expect(fetched[1].isNotAvailable)
        let key: String = fetched[1].key   // implicitly unwrapped, as declared
        #expect(key.count == 5)
        let withValue = try reopened.fetch(FetchDescriptor<Setting>(predicate: #Predicate { $0.value != nil }))
        #expect(withValue.map(\.key) == ["theme"])
    }
}
