import Foundation
import Testing
@testable import OpenSwiftData

/// A store made from its schema record alone (what the tools do, for an import into a new store)
/// holds the very tables, indexes and link tables that the models make, and the models open it as
/// their own.
@Suite struct TableDefinitionTests {
    static let schemas: [(String, [any PersistentModel.Type])] = [
        ("every attribute type, unique and indexed", [AllTypes.self]),
        ("a class hierarchy with a relationship to its base class", [Picture.self, Clip.self, Album.self]),
        ("many-to-many, one-way and one-to-one relationships", [Journey.self, Outing.self, Lodging.self, Label.self, Writer.self, Book.self, Member.self, Folder.self, Memo.self, Attachment.self]),
        ("unique floating-point values", [UNReading.self, UNSample.self]),
    ]

    /// The definition of each table, its columns' SQL and its indexes' SQL, by name.
    private func tables(in path: String) throws -> [String: String] {
        let connection = try SQLiteConnection(path: path, readOnly: true, create: false)
        var result: [String: String] = [:]
        try connection.forEachRow("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL") { row in
            if case .text(let name) = row[0], case .text(let sql) = row[1] { result[name] = sql }
        }
        return result
    }

    @Test(arguments: schemas.indices)
    func aStoreMadeFromTheRecordIsTheStoreTheModelsMake(_ index: Int) throws {
        let (_, models) = Self.schemas[index]
        let schema = Schema(models)
        let record = StoredSchema(schema)
        for entity in schema.entities {
            let fromRecord = TableDefinition(try #require(record.entities.first { $0.name == entity.name }), in: record)
            #expect(TableDefinition(entity) == fromRecord, "\(entity.name)")
        }

        let folder = TemporaryStore()
        let byModels = folder.folder.appendingPathComponent("models.store")
        let byRecord = folder.folder.appendingPathComponent("record.store")
        _ = try ModelContainer(for: schema, configurations: [ModelConfiguration(url: byModels)])
        try StoreFile.creatingStore(at: byRecord.path, name: "default", schema: record) { _ in }
        let expected = try tables(in: byModels.path)
        #expect(schema.entities.allSatisfy { expected[$0.name] != nil }, "every model's table is compared")
        #expect(try tables(in: byRecord.path) == expected)

        // The models open it with nothing to migrate, and save into it.
        _ = try ModelContainer(for: schema, configurations: [ModelConfiguration(url: byRecord)])
        #expect(try StoreFile(path: byRecord.path).schema == record)
        #expect(try tables(in: byRecord.path) == expected)
    }
}
