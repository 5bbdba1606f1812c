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
        let fetched = try #require(try ModelContext(try store.container(Note.self)).fetch(FetchDescriptor<Note>()).first)
        let flag = Flag()
        withObservationTracking {
            _ = fetched.text
        } onChange: {
            flag.fired = true
        }
        fetched.text = "changed"
        #expect(flag.fired)
    }
}
