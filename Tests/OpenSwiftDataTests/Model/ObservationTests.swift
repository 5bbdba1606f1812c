import Foundation
import Observation
import Testing
import OpenSwiftData

/// Final, so that the notification flag can be shared with an `@Sendable` onChange closure.
private final class Flag: @unchecked Sendable {
    var fired = false
}

/// `@Model` classes are `Observable`, as in SwiftData.
@Suite struct ObservationTests {
    @Test func readingAPropertyObservesIt() {
        let note = Note(text: "before")
        let flag = Flag()
        withObservationTracking {
            _ = note.text
        } onChange: {
            flag.fired = true
        }
        note.created = Date(timeIntervalSinceReferenceDate: 1)
        #expect(!flag.fired, "a property that was not read does not notify")
        note.text = "after"
        #expect(flag.fired)
    }

    @Test func fetchedModelsAreObservable() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self))
        context.insert(Note(text: "saved"))
        try context.save()
        let reader = ModelContext(try store.container(Note.self))
        let fetched = try #require(try reader.fetch(FetchDescriptor<Note>()).first)
        let flag = Flag()
        withObservationTracking {
            _ = fetched.text
        } onChange: {
            flag.fired = true
        }
        fetched.text = "changed"
        #expect(flag.fired)
    }

    /// A subclass model reports its inherited and its own properties, each only for itself, and
    /// the first read made its registrar whichever class declared the property read.
    @Test(arguments: [false, true])
    func subclassesReportInheritedAndOwnProperties(readsOwnPropertyFirst: Bool) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(MediaItem.self, Picture.self, Clip.self, Album.self))
        context.insert(Picture(title: "dunes", resolution: 10) as MediaItem)
        try context.save()
        let reader = ModelContext(try store.container(MediaItem.self, Picture.self, Clip.self, Album.self))
        let picture = try #require(try reader.fetch(FetchDescriptor<Picture>()).first)
        let inherited = Flag(), own = Flag()
        if readsOwnPropertyFirst {
            withObservationTracking { _ = picture.resolution } onChange: { own.fired = true }
            withObservationTracking { _ = picture.title } onChange: { inherited.fired = true }
        } else {
            withObservationTracking { _ = picture.title } onChange: { inherited.fired = true }
            withObservationTracking { _ = picture.resolution } onChange: { own.fired = true }
        }
        picture.rating = 3
        #expect(!inherited.fired && !own.fired, "a property nobody read does not notify")
        picture.resolution = 20
        #expect(own.fired)
        #expect(!inherited.fired)
        (picture as MediaItem).title = "dunes at noon"
        #expect(inherited.fired)
    }
}
