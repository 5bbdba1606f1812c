import Foundation
import Testing
@testable import OpenSwiftData

/// Predicates combined at run time with `&&`, `||` and `!` (additions of OpenSwiftData) select,
/// on every store, exactly the models the combination of the parts selects in Swift, through
/// relationships, optionals and closures with variables of their own, and describe themselves.
struct PredicateCompositionTests {
    let store = TemporaryStore()

    @Test(arguments: Backend.allCases)
    func combinedPredicatesSelectWhatTheirPartsSelectTogether(_ backend: Backend) throws {
        let schema = Schema([Picture.self, Clip.self, Album.self])
        let context = ModelContext(try ModelContainer(for: schema, configurations: [backend.configuration(url: store.url)]))
        let summer = Album(name: "Summer")
        let winter = Album(name: "Winter")
        context.insert(summer)
        context.insert(winter)
        let items = [MediaItem(title: "plain", rating: 2), Picture(title: "sea", resolution: 1_080, rating: 5),
                     Picture(title: "hill", resolution: 4_000, rating: 1), Clip(title: "waves", footage: 12.5),
                     MediaItem(title: "été", rating: 4), MediaItem(title: "", rating: 0)]
        for item in items { context.insert(item) }
        items[1].album = summer
        items[3].album = summer
        items[4].album = winter
        try context.save()

        let minimum = 2
        let rated = #Predicate<MediaItem> { $0.rating >= minimum }
        let inSummer = #Predicate<MediaItem> { $0.album?.name == "Summer" }
        let titled = #Predicate<MediaItem> { $0.title.contains("e") }
        let picture = #Predicate<MediaItem> { $0 is Picture }
        let parts = [rated, inSummer, titled, picture]
        let combinations: [(String, Predicate<MediaItem>, (MediaItem) throws -> Bool)] = [
            ("rated && inSummer", rated && inSummer, { try rated.evaluate($0) && inSummer.evaluate($0) }),
            ("rated || titled", rated || titled, { try rated.evaluate($0) || titled.evaluate($0) }),
            ("!inSummer", !inSummer, { try !inSummer.evaluate($0) }),
            ("(rated && !picture) || inSummer", (rated && !picture) || inSummer,
             { try (rated.evaluate($0) && !picture.evaluate($0)) || inSummer.evaluate($0) }),
            ("titled && titled", titled && titled, { try titled.evaluate($0) }),
            ("!(rated || titled) && !picture", !(rated || titled) && !picture,
             { try !(rated.evaluate($0) || titled.evaluate($0)) && !picture.evaluate($0) }),
        ]
        let reopened = ModelContext(try ModelContainer(for: schema, configurations: [backend.configuration(url: store.url)]))
        let all = try reopened.fetch(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(all.count == items.count)
        for (label, combined, reference) in combinations {
            let expected = try all.filter(reference).map(\.title)
            let fetched = try reopened.fetch(FetchDescriptor(predicate: combined, sortBy: [SortDescriptor(\.title)])).map(\.title)
            #expect(fetched == expected, "\(label)")
            #expect(try reopened.fetchCount(FetchDescriptor(predicate: combined)) == expected.count, "\(label)")
            #expect(try all.filter { try combined.evaluate($0) }.map(\.title) == expected, "\(label), evaluated")
            #expect(!combined.description.isEmpty)
        }
        // The parts are left as they were.
        #expect(try all.filter { try rated.evaluate($0) }.count == 3)
        #expect(parts.count == 4)
    }

    /// Closures inside the parts (`contains(where:)`, `flatMap`) keep variables of their own,
    /// which the combination gives new ones without mixing them with the outer variable.
    @Test(arguments: Backend.allCases)
    func partsWithInnerVariablesCombine(_ backend: Backend) throws {
        let schema = Schema([Picture.self, Clip.self, Album.self])
        let context = ModelContext(try ModelContainer(for: schema, configurations: [backend.configuration(url: store.url)]))
        let albums = ["Summer", "Winter", "Spring"].map(Album.init(name:))
        for album in albums { context.insert(album) }
        albums[0].items = [MediaItem(title: "a", rating: 5), MediaItem(title: "b", rating: 1)]
        albums[1].items = [MediaItem(title: "c", rating: 2)]
        try context.save()

        let hasFavourite = #Predicate<Album> { album in album.items.contains { $0.rating >= 4 } }
        let allLow = #Predicate<Album> { album in album.items.allSatisfy { $0.rating < 3 } }
        let named = #Predicate<Album> { album in album.name.starts(with: "S") }
        let combined = (hasFavourite || allLow) && !named
        let fetched = try context.fetch(FetchDescriptor(predicate: combined, sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(fetched == ["Winter"])
        let either = try context.fetch(FetchDescriptor(predicate: hasFavourite || allLow, sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(either == ["Spring", "Summer", "Winter"])
        #expect(try context.fetch(FetchDescriptor(predicate: hasFavourite && allLow)).isEmpty)
    }
}
