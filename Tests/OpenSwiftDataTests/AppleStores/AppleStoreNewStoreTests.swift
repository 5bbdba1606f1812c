import Foundation
import Testing
@testable import OpenSwiftData

/// An Apple-written store imported into a store that does not exist yet: the new store is made
/// for the Apple store's model, holds every row and every relationship the Apple store holds (read
/// back through each store's own reader and compared), is sound, opens with the app's classes for
/// that model with nothing to migrate, and is not left behind when the import fails.
@Suite(.enabled(if: AppleStoreFixtures.folder != nil, AppleStoreFixtures.skipMessage))
struct AppleStoreNewStoreTests {
    private func copy(_ folder: String, _ file: String) throws -> (apple: URL, folder: URL) {
        let (store, scratch) = try AppleStoreFixtures.scratchCopy(folder, file)
        return (store, scratch)
    }

    /// Imports the Apple store at `apple` into a new store file at `path`.
    @discardableResult
    private func importIntoNewStore(
        _ apple: URL, at path: String, ignoring: Set<String> = [], conversions: [String: AppleValueConversion] = [:]
    ) throws -> AppleStoreImport.Outcome? {
        try AppleStoreImport.run(appleStoreAt: apple.path, ignoring: ignoring, conversions: conversions) { schema, body in
            try StoreFile.creatingStore(at: path, name: "default", schema: schema, body)
        }
    }

    /// One relationship between two rows, as either side sees it.
    private struct Edge: Hashable {
        var entity: String
        var key: Int64
        var relationship: String
        var target: Int64
    }

    /// Every row's attributes by model and key, and every relationship between rows, from both
    /// sides, whichever side the store keeps it on.
    private func contents(of store: any StoreTooling) throws -> (rows: [String: [Int64: [String: TypedValue]]], edges: Set<Edge>) {
        var rows: [String: [Int64: [String: TypedValue]]] = [:]
        var edges: Set<Edge> = []
        let byName = Dictionary(store.schema.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func add(_ entity: StoredSchema.Entity, _ relationship: StoredSchema.Relationship, from key: Int64, to target: Int64) {
            // Rows by their class hierarchy: a relationship to a class lists rows of its subclasses,
            // and the keys of a hierarchy's rows are distinct in both stores.
            edges.insert(Edge(entity: store.schema.root(of: entity.name), key: key, relationship: relationship.name, target: target))
            if let inverse = relationship.inverse, byName[relationship.destination] != nil {
                edges.insert(Edge(entity: store.schema.root(of: relationship.destination), key: target, relationship: inverse, target: key))
            }
        }
        for entity in store.schema.entities {
            let table = ModelTable(entity)
            try store.forEachRow(of: table) { row in
                rows[entity.name, default: [:]][row.id] = Dictionary(
                    zip(table.attributes.map(\.name), row.attributes).filter { pair in !table.foreignKeys.contains { $0.name == pair.0 } },
                    uniquingKeysWith: { first, _ in first })
                for (relationship, target) in zip(table.foreignKeys, row.foreignKeys) {
                    if let target { add(entity, relationship, from: row.id, to: target) }
                }
                for (relationship, targets) in zip(table.links, row.links) {
                    for target in targets { add(entity, relationship, from: row.id, to: target) }
                }
            }
        }
        return (rows, edges)
    }

    @Test(arguments: [
        ("cartkit-swiftdata-v1", "CartKitSwiftData_v1.sqlite"), ("cartkit-coredata-v1", "CartStorage_v1.sqlite"),
        ("coredatastack-testmodel", "TestModel.sqlite"), ("wire-store2-99", "store2-99-0.sqlite"),
    ])
    func aNewStoreHoldsEveryRowAndRelationshipOfTheAppleStore(_ fixture: String, _ file: String) throws {
        let (apple, folder) = try copy(fixture, file)
        defer { try? FileManager.default.removeItem(at: folder) }   // the test's scratch folder
        let before = try Data(contentsOf: apple)
        let path = folder.appendingPathComponent("New.store").path
        let outcome = try #require(try importIntoNewStore(apple, at: path))

        let source = try AppleStoreFile(path: apple.path)
        let target = try StoreFile(path: path)
        #expect(try target.verificationProblems() == [])
        #expect(target.schema == source.schema.keptAsModels(), "the record of the new store is that of the app's models for the Apple model")
        let expected = try contents(of: source)
        let imported = try contents(of: target)
        #expect(imported.rows == expected.rows)
        #expect(imported.edges.subtracting(expected.edges) == [], "relationships the Apple store does not have")
        #expect(expected.edges.subtracting(imported.edges) == [], "relationships of the Apple store that were lost")
        #expect(!expected.edges.isEmpty || expected.rows.values.allSatisfy(\.isEmpty) || fixture == "cartkit-swiftdata-v1")
        let importedCounts: [String: Int] = Dictionary(outcome.rows.map { ($0.model, $0.rows) }, uniquingKeysWith: +)
        let everyEntity: [(String, Int)] = source.schema.entities.map { ($0.name, 0) }
        let expectedCounts: [String: Int] = expected.rows.mapValues(\.count).merging(everyEntity, uniquingKeysWith: { count, _ in count })
        #expect(importedCounts == expectedCounts)
        #expect(try Data(contentsOf: apple) == before, "the Apple store is never written")

        // A second import finds the store imported (or, for a store without rows, imports none again).
        let again = try AppleStoreImport.run(appleStoreAt: apple.path, into: try StoreFile(path: path, writable: true), ignoring: [])
        #expect(again == nil || again?.rows.allSatisfy { $0.rows == 0 } == true)
        #expect(try contents(of: StoreFile(path: path)).rows == expected.rows)
    }

    @Test func theAppsClassesOpenTheNewStoreAndSaveIntoIt() throws {
        let (apple, folder) = try copy("cartkit-coredata-v1", "CartStorage_v1.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // the test's scratch folder
        let url = folder.appendingPathComponent("Cart.store")
        try importIntoNewStore(apple, at: url.path)
        // These classes add `.unique` to CDCart.id, which the Apple model does not have: the one
        // difference, which opening migrates (the classes `osd generate models` writes have none;
        // OSDToolTests opens the new store with those and finds nothing to migrate).
        let recorded = try StoreFile(path: url.path).schema
        #expect(recorded.differences(from: StoredSchema(Schema(CartApp.models))) == ["CDCart's uniqueness constraints changed"])

        let container = try ModelContainer(for: Schema(CartApp.models), configurations: [ModelConfiguration(url: url)])
        let cart = try #require(try ModelContext(container).fetch(FetchDescriptor<CartApp.CDCart>()).first)
        #expect(cart.status == "active" && cart.items.map(\.productId) == ["burger"] && cart.items.first?.cart === cart)

        // The app saves into it as into any store of its own, and reads it back after reopening.
        let context = ModelContext(container)
        let item = try #require(try context.fetch(FetchDescriptor<CartApp.CDCartItem>()).first)
        item.quantity = 7
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: Schema(CartApp.models), configurations: [ModelConfiguration(url: url)]))
        #expect(try reopened.fetch(FetchDescriptor<CartApp.CDCartItem>()).map(\.quantity) == [7])
    }

    @Test func aFailedImportLeavesNoStoreBehind() throws {
        let (apple, folder) = try copy("cartkit-coredata-v1", "CartStorage_v1.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // the test's scratch folder
        let path = folder.appendingPathComponent("New.store").path
        struct Refused: Error {}
        #expect(throws: (any Error).self) {
            try importIntoNewStore(apple, at: path, conversions: ["CDCart.metadataJSON": .custom { _ in throw Refused() }])
        }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(path + suffix) is left behind")
        }
        // Afterwards the same import into the same path succeeds.
        #expect(try importIntoNewStore(apple, at: path)?.rows.isEmpty == false)
    }

    @Test func aPathThatHoldsAnythingIsNotTakenOver() throws {
        let (apple, folder) = try copy("cartkit-coredata-v1", "CartStorage_v1.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // the test's scratch folder
        let path = folder.appendingPathComponent("notes.txt").path
        let text = Data("not a store".utf8)
        try text.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SwiftDataError.self) { try importIntoNewStore(apple, at: path) }
        #expect("\(error)".contains("already a file"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
    }

    @Test func whatIsIgnoredIsLeftOutOfTheNewStore() throws {
        let (apple, folder) = try copy("cartkit-coredata-v1", "CartStorage_v1.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // the test's scratch folder
        let path = folder.appendingPathComponent("New.store").path
        try importIntoNewStore(apple, at: path, ignoring: ["CDCartItemModifier", "CDCart.metadataJSON"])
        let schema = try StoreFile(path: path).schema
        #expect(!schema.entities.contains { $0.name == "CDCartItemModifier" })
        let item = try #require(schema.entities.first { $0.name == "CDCartItem" })
        #expect(!item.recordedRelationships.contains { $0.destination == "CDCartItemModifier" })
        let cart = try #require(schema.entities.first { $0.name == "CDCart" })
        #expect(!cart.attributes.contains { $0.name == "metadataJSON" } && cart.attributes.contains { $0.name == "status" })
        #expect(try StoreFile(path: path).verificationProblems() == [])
    }
}
