import Foundation
import OpenSwiftData

// Object graphs as SwiftData users write them: one-to-many with a declared inverse and cascade,
// one-to-one with an inferred inverse, many-to-many with a declared one, self-referential, a one-way
// to-many, `.deny`, and CloudKit-shaped optional to-many arrays.

@Model
final class Journey {
    var name: String
    var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \Outing.journey)
    var outings: [Outing] = []
    var lodging: Lodging?

    init(name: String, startDate: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        self.name = name
        self.startDate = startDate
    }
}

@Model
final class Outing {
    var title: String
    var cost: Int
    var journey: Journey?
    var labels: [Label] = []

    init(title: String, cost: Int = 0, journey: Journey? = nil) {
        self.title = title
        self.cost = cost
        self.journey = journey
    }
}

@Model
final class Lodging {
    var name: String
    var journey: Journey?

    init(name: String) { self.name = name }
}

@Model
final class Label {
    var name: String
    // Many-to-many: SwiftData infers no inverse between two arrays, so it is declared.
    @Relationship(inverse: \Outing.labels) var outings: [Outing] = []

    init(name: String) { self.name = name }
}

@Model
final class Writer {
    var name: String
    @Relationship(deleteRule: .deny)
    var books: [Book] = []

    init(name: String) { self.name = name }
}

@Model
final class Book {
    var title: String
    var writer: Writer?

    init(title: String, writer: Writer? = nil) {
        self.title = title
        self.writer = writer
    }
}

@Model
final class Member {
    var name: String
    @Relationship(inverse: \Member.followers)
    var following: [Member] = []
    var followers: [Member] = []

    init(name: String) { self.name = name }
}

@Model
final class Folder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Folder.parent)
    var children: [Folder] = []
    var parent: Folder?

    init(name: String, parent: Folder? = nil) {
        self.name = name
        self.parent = parent
    }
}

@Model
final class Memo {
    var text: String
    /// One-way: `Attachment` has no relationship back; at most three.
    @Relationship(deleteRule: .cascade, maximumModelCount: 3)
    var attachments: [Attachment] = []
    var pinned: Attachment?

    init(text: String) { self.text = text }
}

@Model
final class Attachment {
    var fileName: String

    init(fileName: String) { self.fileName = fileName }
}

@Model
final class Checklist {
    var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \ChecklistEntry.checklist)
    var entries: [ChecklistEntry]?

    init(title: String) { self.title = title }
}

@Model
final class ChecklistEntry {
    var text: String = ""
    var checklist: Checklist?

    init(text: String) { self.text = text }
}

/// Every model of the graph tests.
var graphModels: [any PersistentModel.Type] { [
    Journey.self, Outing.self, Lodging.self, Label.self, Writer.self, Book.self, Member.self,
    Folder.self, Memo.self, Attachment.self, Checklist.self, ChecklistEntry.self,
]}

extension TemporaryStore {
    /// A container of every graph model on the store file (a "reopen" when called again).
    func graphContainer(_ backend: Backend = TemporaryStore.defaultBackend) throws -> ModelContainer {
        try ModelContainer(for: Schema(graphModels), configurations: [backend.configuration(url: url)])
    }
}
