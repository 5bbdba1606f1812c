import Foundation
import Testing
@testable import OpenSwiftData

/// The app's models for the synthetic SwiftData store: a `Codable` struct Apple's SwiftData kept as
/// a composite attribute, and values Core Data's transformers archived.
enum TodoApp {
    struct Address: Codable, Equatable {
        var city: String
    }

    struct People: Codable, Equatable {
        var name: String
        var age: Int
        var birthday: Date?
        var address: Address
    }

    @Model final class Todo {
        var title: String
        var people: People
        var tags: [String]?
        var raw: Data?

        init(title: String, people: People) {
            self.title = title
            self.people = people
        }
    }
}

/// Values no fixture holds, in a store laid out as SwiftData writes one: a composite attribute
/// (its fields in columns of their own, one nested), transformable values that are keyed
/// archives, converted on import; and the map from Core Data's URIs kept in the imported store.
@Suite struct AppleStoreValueTests {
    static let uuid = "6B0B8C61-2E4A-4D7E-9C64-55B1A3F0C001"
    static let ada = TodoApp.People(name: "Ada", age: 36, birthday: Date(timeIntervalSinceReferenceDate: 700_000_000.5), address: .init(city: "London"))
    static let bob = TodoApp.People(name: "Bob", age: 40, birthday: nil, address: .init(city: "Paris"))

    /// A synthetic store in a folder of its own; `tags` holds what `tags(_:)` makes of row 1.
    private func store(tags: Data? = nil) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Todo.store")
        let archive = try tags ?? NSKeyedArchiver.archivedData(withRootObject: ["home", "work"] as NSArray, requiringSecureCoding: true)
        let S = SyntheticAppleStore.self
        try S.write(
            at: url.path, uuid: Self.uuid, entity: "Todo",
            properties: [
                S.attribute("title", 700),
                S.composite("people", [S.attribute("name", 700), S.attribute("age", 300), S.attribute("birthday", 900, optional: true),
                                       S.composite("address", [S.attribute("city", 700)])]),
                S.attribute("tags", 1800, optional: true, transformer: "NSSecureUnarchiveFromData"),
                S.attribute("raw", 1800, optional: true, transformer: "RawTransformer"),
            ],
            columns: ["ZTITLE VARCHAR", "ZNAME VARCHAR", "ZAGE INTEGER", "ZBIRTHDAY TIMESTAMP", "ZCITY VARCHAR", "ZTAGS BLOB", "ZRAW BLOB"],
            rows: [
                (1, [.text("Buy milk"), .text("Ada"), .integer(36), .real(700_000_000.5), .text("London"), .blob(Array(archive)), .blob([1, 2, 3])]),
                (2, [.text("Call"), .text("Bob"), .integer(40), .null, .text("Paris"), .null, .null]),
            ])
        return url
    }

    private func decoded<T: Decodable>(_ value: TypedValue, as type: T.Type) throws -> T {
        guard case .json(let text) = value else { throw SwiftDataError.storeIsCorrupt }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    @Test func aCompositeReadsAsItsCodableValueAndAnArchiveAsJSON() throws {
        let url = try store()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }   // the test's scratch folder
        let file = try AppleStoreFile(path: url.path, conversions: ["Todo.tags": .keyedArchive])
        #expect(file.layout.unreadable.isEmpty)
        let entity = try #require(file.schema.entities.first { $0.name == "Todo" })
        let table = ModelTable(entity)
        var rows: [ModelRow] = []
        try file.forEachRow(of: table) { rows.append($0) }
        let people = try #require(table.attributes.firstIndex { $0.name == "people" })
        let tags = try #require(table.attributes.firstIndex { $0.name == "tags" })
        #expect(try decoded(rows[0].attributes[people], as: TodoApp.People.self) == Self.ada)
        #expect(try decoded(rows[1].attributes[people], as: TodoApp.People.self) == Self.bob)
        #expect(try decoded(rows[0].attributes[tags], as: [String].self) == ["home", "work"])
        #expect(rows[1].attributes[tags] == .null)
        #expect(try file.verificationProblems() == [])
    }

    @Test func anImportConvertsValuesAndKeepsTheMapOfCoreDataURIs() throws {
        let url = try store()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }   // the test's scratch folder
        let target = TemporaryStore()
        let container = try ModelContainer(for: TodoApp.Todo.self, configurations: ModelConfiguration(url: target.url))
        let imported = try container.importAppleStore(at: url, converting: [
            "Todo.tags": .keyedArchive,
            "Todo.raw": .custom { Data($0.reversed()) },
        ])
        #expect(imported.rows == ["Todo": 2])

        // Read back after reopening the store: values, and the map kept in the store.
        let reopened = try ModelContainer(for: TodoApp.Todo.self, configurations: ModelConfiguration(url: target.url))
        let context = ModelContext(reopened)
        let todos = try context.fetch(FetchDescriptor<TodoApp.Todo>(sortBy: [SortDescriptor(\.title)]))
        #expect(todos.map(\.title) == ["Buy milk", "Call"])
        #expect(todos.map(\.people) == [Self.ada, Self.bob])
        #expect(todos[0].tags == ["home", "work"] && todos[1].tags == nil)
        #expect(todos[0].raw == Data([3, 2, 1]) && todos[1].raw == nil)

        let first = try #require(URL(string: "x-coredata://\(Self.uuid)/Todo/p1"))
        let second = try #require(URL(string: "x-coredata://\(Self.uuid)/Todo/p2"))
        let unknown = try #require(URL(string: "x-coredata://\(Self.uuid)/Todo/p9"))
        let identifiers = try reopened.persistentIdentifiers(forImportedAppleObjects: [first, second, unknown])
        #expect(identifiers.count == 2 && identifiers[unknown] == nil)
        #expect(identifiers[first] == imported.identifiers[first] && identifiers[second] == imported.identifiers[second])
        #expect((context.model(for: try #require(identifiers[second])) as? TodoApp.Todo)?.title == "Call")
    }

    @Test func withoutAConversionAnArchiveHasNoHomeInACodableProperty() throws {
        let url = try store()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }   // the test's scratch folder
        let target = TemporaryStore()
        let container = try ModelContainer(for: TodoApp.Todo.self, configurations: ModelConfiguration(url: target.url))
        let error = try #require(throws: SwiftDataError.self) { try container.importAppleStore(at: url) }
        #expect(error == .schemaMismatch && error.reason?.contains("Todo.tags") == true)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoApp.Todo>()) == 0)
        // A conversion must name a transformable or binary attribute of the store.
        let misnamed = try #require(throws: SwiftDataError.self) { try container.importAppleStore(at: url, converting: ["Todo.tag": .keyedArchive]) }
        #expect(misnamed == .schemaMismatch && misnamed.reason?.contains("Todo.tag") == true)
        let mistyped = try #require(throws: SwiftDataError.self) { try container.importAppleStore(at: url, converting: ["Todo.title": .keyedArchive]) }
        #expect(mistyped == .schemaMismatch && mistyped.reason?.contains("Todo.title") == true)
    }

    @Test func aValueThatCannotBeConvertedStopsTheImportNamingItsRow() throws {
        struct Refused: Error {}
        // An archive of a class of the app's own has no JSON form.
        let location = ArchivedObject(className: "TripLocation", fields: ["latitude": .integer(1)]).archive()
        for (tags, conversions, words) in [
            (Data(location), ["Todo.tags": AppleValueConversion.keyedArchive], "TripLocation"),
            (Data([0x62, 0x70, 0x6C]), ["Todo.tags": .keyedArchive], "not a keyed archive"),
            (nil, ["Todo.tags": .keyedArchive, "Todo.raw": .custom { _ in throw Refused() }], "Todo.raw"),
        ] as [(Data?, [String: AppleValueConversion], String)] {
            let url = try store(tags: tags)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }   // the test's scratch folder
            let target = TemporaryStore()
            let container = try ModelContainer(for: TodoApp.Todo.self, configurations: ModelConfiguration(url: target.url))
            let error = try #require(throws: SwiftDataError.self) { try container.importAppleStore(at: url, converting: conversions) }
            #expect(error == .storeIsCorrupt && error.reason?.contains(words) == true && error.reason?.contains("row 1") == true, "\(error)")
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoApp.Todo>()) == 0)
            #expect(try container.persistentIdentifiers(forImportedAppleObjects: [URL(string: "x-coredata://\(Self.uuid)/Todo/p2")!]).isEmpty)
        }
    }
}
