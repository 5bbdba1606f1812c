import Foundation
import OpenSwiftData

// Models shaped like those of the SwiftData projects whose own test suites found the differences.

/// Two arrays of each other without `inverse:`: two one-way relationships, as in SwiftData.
@Model
final class Reader {
    var name: String
    var books: [Novel] = []
    init(name: String) { self.name = name }
}

@Model
final class Novel {
    var title: String
    var readers: [Reader] = []
    init(title: String) { self.title = title }
}

/// A to-many and a non-optional to-one without `inverse:`: not inferred either.
@Model
final class School {
    var name: String
    var students: [Student] = []
    init(name: String) { self.name = name }
}

@Model
final class Student {
    var name: String
    var school: School
    init(name: String, school: School) { self.name = name; self.school = school }
}

/// A to-many and an optional to-one without `inverse:`: one inferred one-to-many relationship.
@Model
final class Director {
    var name: String
    var movies: [Movie] = []
    init(name: String) { self.name = name }
}

@Model
final class Movie {
    var title: String
    var director: Director?
    init(title: String) { self.title = title }
}

/// A library's versioned to-do schema: version 2 adds a required property without a default.
enum TodoSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Todo.self] }

    @Model
    final class Todo {
        var title: String
        var details: String?
        init(title: String, details: String? = nil) { self.title = title; self.details = details }
    }
}

enum TodoSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Todo.self] }

    @Model
    final class Todo {
        var title: String
        var details: String
        var editHistory: [String]
        init(title: String, details: String, editHistory: [String]) {
            self.title = title
            self.details = details
            self.editHistory = editHistory
        }
    }
}

/// Empties the table before version 2 applies, as the library's own migration tests do.
enum EmptyingTodoPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TodoSchemaV1.self, TodoSchemaV2.self] }
    static var stages: [MigrationStage] { [
        .custom(fromVersion: TodoSchemaV1.self, toVersion: TodoSchemaV2.self, willMigrate: { context in
            try context.delete(model: TodoSchemaV1.Todo.self)
            try context.save()
        }, didMigrate: nil),
    ] }
}

/// Keeps the rows: version 2's new required property has no value for them.
enum KeepingTodoPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TodoSchemaV1.self, TodoSchemaV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TodoSchemaV1.self, toVersion: TodoSchemaV2.self)] }
}
