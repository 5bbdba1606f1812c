import Foundation
import Testing
@testable import OpenSwiftData

@Model final class FWShelf {
    var label: String
    @Relationship(inverse: \FWJar.shelf) var jars: [FWJar] = []
    init(label: String) { self.label = label }
}

@Model final class FWJar {
    var contents: String
    var grams: Int
    var shelf: FWShelf?
    init(contents: String, grams: Int, shelf: FWShelf?) {
        self.contents = contents
        self.grams = grams
        self.shelf = shelf
    }
}

/// What another program (the `sqlite3` shell, a script, a sync tool) may write into a store's
/// tables, within what their STRICT types allow: each read gives the value, or throws a
/// `SwiftDataError` naming the model and property; nothing stops the process, and no change is
/// silently not saved.
@Suite struct ForeignWritesTests {
    let store = TemporaryStore()

    /// Values of every SQLite type, the extremes, and text and blobs shaped like what the store
    /// writes but wrong.
    static let foreignValues = [
        "0", "-1", "9223372036854775807", "-9223372036854775808", "3.5", "1e308", "''", "'abc'", "'12.5'",
        "X''", "X'00FF'", "randomblob(16)", "randomblob(17)", "'{}'", "'[]'", "'null'", "'[1,2'", "'\"nope\"'",
        "zeroblob(100000)", "'" + String(repeating: "9", count: 400) + "'",
    ]

    /// Every column of a model of every attribute type, set in turn to every foreign value its
    /// column's type takes: each fetch, property read and save gives values or throws a
    /// `SwiftDataError`; a number that does not fit its property's type is an error, not a
    /// truncated value.
    @Test func foreignValuesInEveryColumnReadAsValuesOrErrors() throws {
        do {
            let context = ModelContext(try store.container(AllTypes.self))
            context.insert(AllTypes(seed: 1))
            try context.save()
        }
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        let info = try connection.uncachedStatement("SELECT name FROM pragma_table_info('AllTypes') WHERE name <> '_pk'")
        var columns: [String] = []
        while try info.step() { columns.append(info._string(0)) }
        #expect(columns.count == 36)
        var read = 0
        var refused: [String] = []
        for column in columns {
            for value in Self.foreignValues {
                // STRICT tables refuse values of another type, and NOT NULL refuses NULL.
                do { try connection.execute("UPDATE \"AllTypes\" SET \"\(column)\" = \(value)") } catch { continue }
                let context = ModelContext(try store.container(AllTypes.self))
                do {
                    let model = try #require(try context.fetch(FetchDescriptor<AllTypes>()).first)
                    _ = "\(model.int8)\(model.uint8)\(model.float)\(model.date)\(model.url)\(model.uuid)\(model.decimal)\(model.mood)\(model.address)\(model.addresses)\(model.licence)"
                    model.optionalString = "touched"
                    try context.save()
                    read += 1
                } catch {
                    #expect(error is SwiftDataError, "\(column) = \(value): \(error)")
                    refused.append("\(column)=\(value)")
                }
            }
            // Back to a valid row for the next column.
            try connection.execute("DELETE FROM \"AllTypes\"")
            let context = ModelContext(try store.container(AllTypes.self))
            context.insert(AllTypes(seed: 1))
            try context.save()
        }
        #expect(read > 100)
        #expect(refused.contains("int8=9223372036854775807") && refused.contains("uint16=-1") && refused.contains("uuid=randomblob(17)"))
        #expect(!refused.contains("int8=-1"))
    }

    /// No store hands out the key 0, and a model with it would look unsaved (its changes never
    /// saved): a row another program gave that key is a clear error wherever it is read, and a
    /// usable model once it has another key.
    @Test func aRowWithKeyZeroIsAnErrorUntilItHasAnotherKey() throws {
        do {
            let context = ModelContext(try store.container(FWShelf.self, FWJar.self))
            let shelf = FWShelf(label: "top")
            context.insert(FWJar(contents: "jam", grams: 300, shelf: shelf))
            try context.save()
        }
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("PRAGMA foreign_keys=OFF; UPDATE \"FWShelf\" SET _pk = 0; UPDATE \"FWJar\" SET \"shelf\" = 0")
        let context = ModelContext(try store.container(FWShelf.self, FWJar.self))
        for attempt in [
            { _ = try context.fetch(FetchDescriptor<FWShelf>()) },
            { _ = try context.fetchIdentifiers(FetchDescriptor<FWShelf>()) },
            { _ = try context.fetch(FetchDescriptor<FWJar>()) },   // its shelf is the row with key 0
        ] as [() throws -> Void] {
            // Read through a jar's shelf, the error names the property being read too.
            let error = #expect(throws: SwiftDataError.self) { try attempt() }
            #expect(error?.kind == .storeIsCorrupt || error?.kind == .modelValidationFailure)
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("FWShelf table holds a row whose key is 0"), "\(message)")
        }
        try connection.execute("PRAGMA foreign_keys=OFF; UPDATE \"FWShelf\" SET _pk = 100; UPDATE \"FWJar\" SET \"shelf\" = 100")
        let renumbered = ModelContext(try store.container(FWShelf.self, FWJar.self))
        let shelf = try #require(try renumbered.fetch(FetchDescriptor<FWShelf>()).first)
        shelf.label = "middle"
        try renumbered.save()
        let reread = ModelContext(try store.container(FWShelf.self, FWJar.self))
        #expect(try reread.fetch(FetchDescriptor<FWJar>()).first?.shelf?.label == "middle")
    }

    /// An identifier decoded from elsewhere with the key 0 names no model: `model(for:)` gives a
    /// stand-in, as for any identifier the container cannot resolve, not a model that looks unsaved.
    @Test func aDecodedIdentifierWithKeyZeroNamesNoModel() throws {
        let context = ModelContext(try store.container(FWShelf.self, FWJar.self))
        let shelf = FWShelf(label: "top")
        context.insert(shelf)
        try context.save()
        let json = String(decoding: try JSONEncoder().encode(shelf.persistentModelID), as: UTF8.self)
        let key = "\(try #require(shelf.persistentModelID.primaryKey))"
        #expect(json.contains(":\(key)"), "\(json)")
        let zeroed = try JSONDecoder().decode(PersistentIdentifier.self, from: Data(json.replacingOccurrences(of: ":\(key)", with: ":0").utf8))
        #expect(zeroed.primaryKey == 0)
        #expect(context.model(for: zeroed) as? FWShelf == nil)
        #expect(context.model(for: shelf.persistentModelID) as? FWShelf === shelf)
    }

    /// The record of deleted keys (which keeps a deleted model's identifier from being reused)
    /// set to the largest key leaves no key for a new row: the save throws, nothing is written,
    /// and the context keeps the insert; it saves once the record is mended.
    @Test func aKeyFloorAtTheLargestKeyIsAnErrorNotATrap() throws {
        let container = try store.container(FWShelf.self, FWJar.self)
        let context = ModelContext(container)
        context.insert(FWShelf(label: "a"))
        try context.save()
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("INSERT OR REPLACE INTO osd_key_floors (table_name, floor) VALUES ('FWShelf', 9223372036854775807)")
        context.insert(FWShelf(label: "b"))
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.kind == .storeFailure)
        #expect(context.insertedModelsArray.count == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<FWShelf>()) == 1)
        try connection.execute("UPDATE osd_key_floors SET floor = 10 WHERE table_name = 'FWShelf'")
        try context.save()
        let labels = try ModelContext(try store.container(FWShelf.self, FWJar.self)).fetch(FetchDescriptor<FWShelf>(sortBy: [SortDescriptor(\.label)])).map(\.label)
        #expect(labels == ["a", "b"])
    }
}
