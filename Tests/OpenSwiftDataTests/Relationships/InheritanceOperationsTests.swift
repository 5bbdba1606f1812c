import Foundation
import Testing
@testable import OpenSwiftData

/// The context's other operations on a class hierarchy: delete rules through a relationship to the
/// superclass (one by one and by predicate), pages and sorts across the hierarchy's tables,
/// identifiers, batches and enumeration, rollback and partial fetches.
@Suite struct InheritanceOperationsTests {
    let store = TemporaryStore()

    func container(_ backend: Backend) throws -> ModelContainer {
        try store.container(MediaItem.self, Picture.self, Clip.self, Album.self, backend: backend)
    }

    /// Two albums of six items each (pictures, clips, plain items), titled "a0"… "b5".
    func seed(_ backend: Backend) throws -> ModelContext {
        let context = ModelContext(try container(backend))
        for name in ["a", "b"] {
            let album = Album(name: name)
            context.insert(album)
            for index in 0..<6 {
                let title = "\(name)\(index)"
                let item: MediaItem = switch index % 3 {
                case 0: Picture(title: title, resolution: index * 10, rating: index)
                case 1: Clip(title: title, footage: Double(index))
                default: MediaItem(title: title, rating: index)
                }
                album.items.append(item)
            }
        }
        try context.save()
        return context
    }

    @Test(arguments: Backend.allCases)
    func deletingAnAlbumCascadesToEverySubclass(_ backend: Backend) throws {
        let context = try seed(backend)
        let album = try #require(try context.fetch(FetchDescriptor<Album>(predicate: #Predicate { $0.name == "a" })).first)
        context.delete(album)
        try context.save()
        let left = try ModelContext(try container(backend)).fetch(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(left.map(\.title) == ["b0", "b1", "b2", "b3", "b4", "b5"])
        #expect(left.compactMap { $0 as? Picture }.count == 2)

        try context.delete(model: Album.self, where: #Predicate { $0.name == "b" })
        try context.save()
        let fresh = ModelContext(try container(backend))
        #expect(try fresh.fetchCount(FetchDescriptor<MediaItem>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Picture>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Album>()) == 0)
    }

    @Test(arguments: Backend.allCases)
    func pagesSortsIdentifiersAndBatchesSpanTheHierarchy(_ backend: Backend) throws {
        _ = try seed(backend)
        let context = ModelContext(try container(backend))
        let everything = try context.fetch(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title, order: .reverse)]))
        #expect(everything.map(\.title) == ["b5", "b4", "b3", "b2", "b1", "b0", "a5", "a4", "a3", "a2", "a1", "a0"])

        var page = FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.rating), SortDescriptor(\.title)])
        page.fetchOffset = 3
        page.fetchLimit = 4
        let expected = everything.sorted { ($0.rating, $0.title) < ($1.rating, $1.title) }[3..<7].map(\.title)
        #expect(try context.fetch(page).map(\.title) == Array(expected))

        let identifiers = try context.fetchIdentifiers(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(identifiers == everything.reversed().map(\.persistentModelID))

        let batched = try context.fetch(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]), batchSize: 5)
        #expect(batched.map(\.title) == everything.reversed().map(\.title))
        var enumerated: [String] = []
        try context.enumerate(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]), batchSize: 4) { enumerated.append($0.title) }
        #expect(enumerated == everything.reversed().map(\.title))
    }

    @Test(arguments: Backend.allCases)
    func rollbackAndPartialFetchesKeepEachClass(_ backend: Backend) throws {
        let context = try seed(backend)
        let extra: MediaItem = Picture(title: "z", resolution: 1)
        context.insert(extra)
        let clip = try #require(try context.fetch(FetchDescriptor<Clip>(sortBy: [SortDescriptor(\.title)])).first)
        clip.footage = 999
        clip.title = "changed"
        context.rollback()
        #expect(clip.footage == 1)
        #expect(clip.title == "a1")
        #expect(try context.fetchCount(FetchDescriptor<MediaItem>()) == 12)

        var partial = FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)])
        partial.propertiesToFetch = [\.title]
        let fresh = ModelContext(try container(backend))
        let items = try fresh.fetch(partial)
        #expect(items.count == 12)
        #expect((items.first as? Picture)?.resolution == 0)
        #expect((items[1] as? Clip)?.footage == 1)
        #expect(items[2].rating == 2)
        #expect(items.map(\.album?.name) == Array(repeating: "a", count: 6) + Array(repeating: "b", count: 6))
    }

    @Test(arguments: Backend.allCases)
    func prefetchingAndIdentifiersWorkBothWaysAcrossTheHierarchy(_ backend: Backend) throws {
        _ = try seed(backend)
        let context = ModelContext(try container(backend))
        var albums = FetchDescriptor<Album>(sortBy: [SortDescriptor(\.name)])
        albums.relationshipKeyPathsForPrefetching = [\.items]
        let fetched = try context.fetch(albums)
        #expect(fetched.map { $0.items.map(\.title).sorted() } == [
            ["a0", "a1", "a2", "a3", "a4", "a5"], ["b0", "b1", "b2", "b3", "b4", "b5"],
        ])
        #expect(fetched[0].items.compactMap { $0 as? Clip }.map(\.footage).sorted() == [1, 4])

        var items = FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)])
        items.relationshipKeyPathsForPrefetching = [\.album]
        let media = try ModelContext(try container(backend)).fetch(items)
        #expect(media.map { $0.album?.name ?? "-" } == Array(repeating: "a", count: 6) + Array(repeating: "b", count: 6))

        // Identifiers of subclass models survive encoding, as an app sends them between processes.
        let encoded = try JSONEncoder().encode(media.map(\.persistentModelID))
        let decoded = try JSONDecoder().decode([PersistentIdentifier].self, from: encoded)
        let elsewhere = ModelContext(try container(backend))
        let found = decoded.map { elsewhere.model(for: $0) as? MediaItem }
        #expect(found.map { $0?.title } == media.map(\.title))
        #expect(zip(found, media).allSatisfy { type(of: $0!) == type(of: $1) })
    }
}
