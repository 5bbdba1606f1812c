import Foundation
import Testing
import OpenSwiftData

enum TaskStatus: String, Codable {
    case active, done
}

/// Model shapes SwiftData users write every day.
@Model
final class TodoItem {
    @Attribute(.unique) var id: UUID = UUID()
    var title: String
    var createdAt: Date = Date.now
    var tags: [String] = []
    var status: TaskStatus = TaskStatus.active
    var priority: Int?
    var estimate: Double = 1.5

    init(title: String) {
        self.title = title
    }
}

@Suite struct CommonModelShapesTests {
    @Test func aModelWithItsOwnIdentifierPropertyRoundTrips() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(TodoItem.self))
        let todo = TodoItem(title: "Write docs")
        todo.tags = ["docs", "urgent"]
        todo.status = .done
        let id = todo.id
        context.insert(todo)
        try context.save()

        let reopened = ModelContext(try store.container(TodoItem.self))
        let fetched = try #require(try reopened.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.id == id })).first)
        #expect(fetched.title == "Write docs")
        #expect(fetched.tags == ["docs", "urgent"])
        #expect(fetched.status == .done)
        #expect(fetched.priority == nil)
        #expect(fetched.estimate == 1.5)
        #expect(abs(fetched.createdAt.timeIntervalSince(todo.createdAt)) == 0)
        #expect(fetched.persistentModelID == todo.persistentModelID)
    }
}
