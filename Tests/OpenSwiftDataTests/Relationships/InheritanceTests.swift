import Foundation
import Testing
@testable import OpenSwiftData

// Model inheritance as SwiftData has it since iOS 26: a base model class, subclasses that add
// properties, and a relationship to the base class that holds subclass instances.

@Model
class MediaItem {
    var title: String
    var rating: Int = 0
    var album: Album?

    init(title: String, rating: Int = 0) {
        self.title = title
        self.rating = rating
    }
}

@Model
final class Picture: MediaItem {
    var resolution: Int

    init(title: String, resolution: Int, rating: Int = 0) {
        self.resolution = resolution
        super.init(title: title, rating: rating)
    }
}

@Model
final class Clip: MediaItem {
    /// The length of the clip's film, in metres.
    var footage: Double
    var caption: String?

    init(title: String, footage: Double) {
        self.footage = footage
        super.init(title: title)
    }
}

@Model
final class Album {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \MediaItem.album)
    var items: [MediaItem] = []

    init(name: String) { self.name = name }
}

struct InheritanceTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Schema([Picture.self, Clip.self, Album.self]), configurations: [store.configuration()])
    }

    /// Two plain items, three pictures and two clips.
    func seed() throws {
        let context = ModelContext(try container())
        context.insert(MediaItem(title: "note", rating: 1))
        context.insert(MediaItem(title: "scan", rating: 4))
        for (index, title) in ["beach", "city", "forest"].enumerated() {
            context.insert(Picture(title: title, resolution: 1_000 * (index + 1), rating: index + 2))
        }
        context.insert(Clip(title: "intro", footage: 12.5))
        context.insert(Clip(title: "outro", footage: 3))
        try context.save()
    }

    @Test func theSchemaIncludesTheBaseClassAndKnowsTheHierarchy() throws {
        let schema = try container().schema
        let base = try #require(schema.entity(for: MediaItem.self))
        #expect(schema.entity(for: Picture.self)?.superentity === base)
        #expect(Set(base.subentities.map(\.name)) == ["Picture", "Clip"])
        #expect(schema.entity(for: Picture.self)?.attributes.map(\.name) == ["title", "rating", "resolution"])
    }

    @Test func fetchingTheBaseReturnsEverySubclassAsItsOwnClass() throws {
        try seed()
        let context = ModelContext(try container())
        let all = try context.fetch(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(all.map(\.title) == ["beach", "city", "forest", "intro", "note", "outro", "scan"])
        #expect(all.filter { $0 is Picture }.count == 3)
        #expect(all.filter { $0 is Clip }.count == 2)
        #expect((all.first as? Picture)?.resolution == 1_000)
        #expect(try context.fetchCount(FetchDescriptor<MediaItem>()) == 7)
        #expect(Set(try context.fetchIdentifiers(FetchDescriptor<MediaItem>())).count == 7, "keys are unique across the hierarchy")

        let pictures = try context.fetch(FetchDescriptor<Picture>(sortBy: [SortDescriptor(\.resolution, order: .reverse)]))
        #expect(pictures.map(\.title) == ["forest", "city", "beach"])
        #expect(try context.fetchCount(FetchDescriptor<Clip>()) == 2)

        var page = FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.title)])
        page.fetchLimit = 3
        #expect(try context.fetch(page).map(\.title) == ["forest", "scan", "city"])
        var titlesOnly = FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)])
        titlesOnly.propertiesToFetch = [\.title]
        let partial = try ModelContext(try container()).fetch(titlesOnly)
        #expect(partial.map(\.title) == ["beach", "city", "forest", "intro", "note", "outro", "scan"])
        #expect((partial.first as? Picture)?.resolution == 1_000, "the rest loads on first access")
        let batched = try context.fetch(FetchDescriptor<MediaItem>(), batchSize: 2)
        #expect(batched.count == 7)
        #expect(batched.filter { $0 is Clip }.count == 2)
    }

    @Test func predicatesOnInheritedAndOwnPropertiesAndOnTheClass() throws {
        try seed()
        let context = ModelContext(try container())
        let sharp = try context.fetch(FetchDescriptor<Picture>(predicate: #Predicate { $0.rating >= 3 && $0.resolution > 1_500 }))
        #expect(Set(sharp.map(\.title)) == ["city", "forest"])
        let clips = try context.fetch(FetchDescriptor<MediaItem>(predicate: #Predicate { $0 is Clip }))
        #expect(Set(clips.map(\.title)) == ["intro", "outro"])
        let rated = try context.fetch(FetchDescriptor<MediaItem>(predicate: #Predicate { $0.rating >= 3 }))
        #expect(Set(rated.map(\.title)) == ["scan", "city", "forest"])
        let long = try context.fetch(FetchDescriptor<Clip>(predicate: #Predicate { $0.footage > 10 }))
        #expect(long.map(\.title) == ["intro"])
        // `\Picture.rating` is not `\MediaItem.rating` to Swift, yet both are the stored column.
        let schema = context.container.schema
        let plan = PredicateTranslator.plan(
            for: FetchDescriptor<Picture>(predicate: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.title)]),
            entity: try #require(schema.entity(for: Picture.self)), schema: schema)
        #expect(plan.isExact && plan.sortIsExact, "inherited properties translate to SQL")
    }

    @Test func deletingByPredicateWithAndWithoutSubclasses() throws {
        try seed()
        let context = ModelContext(try container())
        try context.delete(model: MediaItem.self, where: #Predicate { $0.rating < 3 }, includeSubclasses: false)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<MediaItem>()).count == 6, "only the base class's 'note' went")
        try context.delete(model: MediaItem.self, where: #Predicate { $0.rating < 3 })
        try context.save()
        let reopened = ModelContext(try container())
        let left = try reopened.fetch(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(left.map(\.title) == ["city", "forest", "scan"])
    }

    @Test func aRelationshipToTheBaseClassHoldsSubclassInstances() throws {
        let context = ModelContext(try container())
        let album = Album(name: "Holiday")
        context.insert(album)
        album.items = [Picture(title: "sunset", resolution: 4_000), Clip(title: "waves", footage: 30), MediaItem(title: "ticket")]
        #expect(album.items.allSatisfy { $0.album === album })
        try context.save()

        let reopened = ModelContext(try container())
        let stored = try #require(try reopened.fetch(FetchDescriptor<Album>()).first)
        #expect(stored.items.map(\.title) == ["sunset", "waves", "ticket"])
        #expect(stored.items[0] is Picture && stored.items[1] is Clip && !(stored.items[2] is Picture))
        #expect((stored.items[0] as? Picture)?.resolution == 4_000)
        let clip = try #require(try reopened.fetch(FetchDescriptor<Clip>()).first)
        #expect(clip.album === stored)

        reopened.delete(stored)
        try reopened.save()
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<MediaItem>()) == 0, "the cascade reached every class")
    }
}
