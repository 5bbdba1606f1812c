import Foundation
import OpenSwiftData
import Testing

/// `osd` on stores Apple's Core Data and SwiftData wrote (the workplace's shared fixtures, read
/// from a copy): inspect, schema, export and verify work from the model the store caches; query
/// filters and writes are refused, saying why.
@Suite struct AppleStoreTests {
    static let fixtures: URL? = {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [checkout.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple-stores"),
                URL(fileURLWithPath: "/work/shared/fixtures/apple-stores")]
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("README.md").path) }
    }()

    /// A copy of the SwiftData fixture store in a folder of its own.
    private func swiftDataStore() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = try #require(Self.fixtures).appendingPathComponent("cartkit-swiftdata-v1/CartKitSwiftData_v1.sqlite")
        let copy = folder.appendingPathComponent("Cart.sqlite")
        try FileManager.default.copyItem(at: source, to: copy)
        return copy
    }

    @Test(.enabled(if: fixtures != nil, "the Apple-written fixture stores are not beside this checkout"))
    func inspectSchemaExportAndVerifyReadASwiftDataStore() throws {
        let store = try swiftDataStore()
        defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }   // the test's scratch copy
        let inspect = try OSDTool.run("inspect", store.path)
        #expect(inspect.status == 0, "\(inspect.error)")
        #expect(inspect.output.contains("CartModel — 1 row"))
        #expect(inspect.output.contains("Written by Apple's Core Data or SwiftData (Core Data framework version 1523); read only"))
        #expect(inspect.output.contains("totalPriceAmount: Decimal"))

        let schema = try OSDTool.run("schema", store.path)
        #expect(schema.status == 0, "\(schema.error)")
        #expect(schema.output.contains("\"CartItemModifierModel\""))

        let out = store.deletingLastPathComponent().appendingPathComponent("export")
        let export = try OSDTool.run("export", store.path, "--format", "json", "--out", out.path)
        #expect(export.status == 0, "\(export.error)")
        let carts = try String(contentsOf: out.appendingPathComponent("CartModel.json"), encoding: .utf8)
        #expect(carts.contains(#""status":"active""#))
        #expect(carts.contains(#""createdAt":"2026-01-30T15:01:45"#))

        let verify = try OSDTool.run("verify", store.path)
        #expect(verify.status == 0, "\(verify.error)")

        let query = try OSDTool.run("query", store.path, "CartModel", "--where", "status == \"active\"")
        #expect(query.status != 0)
        #expect(query.error.contains("Apple's Core Data or SwiftData"))
    }

    @Test(.enabled(if: fixtures != nil, "the Apple-written fixture stores are not beside this checkout"))
    func importFromAppleNamesWhatHasNoHomeAndImportsWhatIsLeftOut() throws {
        let apple = try swiftDataStore()
        defer { try? FileManager.default.removeItem(at: apple.deletingLastPathComponent()) }   // the test's scratch copy
        let target = apple.deletingLastPathComponent().appendingPathComponent("Target.store")
        _ = try ModelContainer(for: Schema([Voyage.self]), configurations: [ModelConfiguration(url: target)])

        let refused = try OSDTool.run("import", "--from-apple", apple.path, "--into", target.path)
        #expect(refused.status != 0)
        #expect(refused.error.contains("model CartModel is not among the app's models"), "\(refused.error)")

        let ignored = try OSDTool.run(
            "import", "--from-apple", apple.path, "--into", target.path, "--ignore", "CartModel,CartItemModel,CartItemModifierModel")
        #expect(ignored.status == 0, "\(ignored.error)")
        #expect(ignored.output.isEmpty, "no model to import into: \(ignored.output)")
        let positional = try OSDTool.run("import", target.path, "--from-apple", apple.path, "--from", "somewhere")
        #expect(positional.status != 0, "one source at a time")
    }

    @Test(.enabled(if: fixtures != nil, "the Apple-written fixture stores are not beside this checkout"))
    func modelsGeneratedFromACoreDataStoreImportItsRows() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }   // the test's scratch folder
        let apple = folder.appendingPathComponent("CartStorage_v1.sqlite")
        try FileManager.default.copyItem(at: try #require(Self.fixtures).appendingPathComponent("cartkit-coredata-v1/CartStorage_v1.sqlite"), to: apple)
        let before = try Data(contentsOf: apple)

        // The classes for the store's own model are the ones compiled into these tests.
        let generated = try OSDTool.run("generate", "models", "--from-apple", apple.path)
        #expect(generated.status == 0, "\(generated.error)")
        try Golden.expect(generated.output, equals: "Generated/CartStorageModels.swift")

        // Into a path with no store, the import makes one for the store's model, whole, with
        // nothing to ignore; it verifies clean.
        let target = folder.appendingPathComponent("Cart.store")
        let imported = try OSDTool.run("import", "--from-apple", apple.path, "--into", target.path)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("CDCart: 1 rows imported") && imported.output.contains("CDCartItem: 1 rows imported"), "\(imported.output)")
        #expect(try OSDTool.run("verify", target.path).status == 0)
        let models: [any PersistentModel.Type] = [CDCart.self, CDCartItem.self, CDCartItemModifier.self]
        let recorded = try StoreFile(path: target.path).schema
        #expect(recorded.differences(from: StoredSchema(Schema(models))) == [])
        // The generated classes open it as their own: nothing to migrate, the record unchanged.
        let context = ModelContext(try ModelContainer(for: Schema([CDCart.self, CDCartItem.self, CDCartItemModifier.self]), configurations: [ModelConfiguration(url: target)]))
        let cart = try #require(try context.fetch(FetchDescriptor<CDCart>()).first)
        #expect(cart.status == "active" && cart.items.map(\.productId) == ["burger"] && cart.items.first?.cart === cart)
        #expect(try StoreFile(path: target.path).schema == recorded)
        #expect(try Data(contentsOf: apple) == before)

        // A file that is not an Apple store is named as such.
        let notApple = try OSDTool.run("generate", "models", "--from-apple", target.path)
        #expect(notApple.status != 0 && notApple.error.contains("is not a store Apple's Core Data or SwiftData wrote"), "\(notApple.error)")
    }
}
