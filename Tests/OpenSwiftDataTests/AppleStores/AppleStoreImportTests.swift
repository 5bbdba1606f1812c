import Foundation
import Testing
@testable import OpenSwiftData

/// The app's models for the Core Data cart store of the fixtures: the same names as its entities.
enum CartApp {
    @Model final class CDCart {
        var context: String?
        var createdAt: Date
        var displayName: String?
        @Attribute(.unique) var id: String
        var maxItemCount: Int?
        var metadataJSON: Data?
        var minSubtotalAmount: Decimal?
        var minSubtotalCurrencyCode: String?
        var profileId: String?
        var status: String
        var storeId: String
        var storeImageURL: String?
        var updatedAt: Date
        @Relationship(deleteRule: .cascade, inverse: \CDCartItem.cart) var items: [CDCartItem] = []

        init(id: String, status: String, storeId: String) {
            self.id = id
            self.status = status
            self.storeId = storeId
            createdAt = .now
            updatedAt = .now
        }
    }

    @Model final class CDCartItem {
        var availableStock: Int?
        var id: String
        var imageURL: String?
        var productId: String
        var quantity: Int
        var totalPriceAmount: Decimal?
        var totalPriceCurrencyCode: String?
        var unitPriceAmount: Decimal
        var unitPriceCurrencyCode: String?
        var cart: CDCart?
        @Relationship(deleteRule: .cascade) var modifiers: [CDCartItemModifier] = []

        init(id: String, productId: String, quantity: Int, unitPriceAmount: Decimal) {
            self.id = id
            self.productId = productId
            self.quantity = quantity
            self.unitPriceAmount = unitPriceAmount
        }
    }

    @Model final class CDCartItemModifier {
        var id: String
        var name: String
        var priceDeltaAmount: Decimal
        var priceDeltaCurrencyCode: String
        var item: CDCartItem?

        init(id: String, name: String, priceDeltaAmount: Decimal, priceDeltaCurrencyCode: String) {
            self.id = id
            self.name = name
            self.priceDeltaAmount = priceDeltaAmount
            self.priceDeltaCurrencyCode = priceDeltaCurrencyCode
        }
    }

    static let models: [any PersistentModel.Type] = [CDCart.self, CDCartItem.self, CDCartItemModifier.self]
}

/// An app brings along the rows of a store Apple's Core Data wrote: every row with its
/// relationships, once, all or nothing, with the Apple store left as it was.
@Suite(.enabled(if: AppleStoreFixtures.folder != nil, AppleStoreFixtures.skipMessage))
struct AppleStoreImportTests {
    private func appleStoreCopy() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("CartStorage_v1.sqlite")
        try FileManager.default.copyItem(at: try AppleStoreFixtures.store("cartkit-coredata-v1", "CartStorage_v1.sqlite"), to: copy)
        return copy
    }

    @Test func rowsAndRelationshipsArriveOnceAndTheAppleStoreIsUntouched() throws {
        let apple = try appleStoreCopy()
        defer { try? FileManager.default.removeItem(at: apple.deletingLastPathComponent()) }   // the test's scratch copy
        let before = try Data(contentsOf: apple)
        let store = TemporaryStore()
        let container = try ModelContainer(for: Schema(CartApp.models), configurations: [ModelConfiguration(url: store.url)])
        let imported = try container.importAppleStore(at: apple)
        #expect(imported.rows == ["CDCart": 1, "CDCartItem": 1, "CDCartItemModifier": 0])
        #expect(!imported.wasImportedBefore)
        let uuid = try #require(try AppleStoreFile(path: apple.path).storeUUID)
        let cartURI = try #require(URL(string: "x-coredata://\(uuid)/CDCart/p1"))
        let cartID = try #require(imported.identifiers[cartURI])
        #expect((ModelContext(container).model(for: cartID) as? CartApp.CDCart)?.status == "active")
        #expect(try Data(contentsOf: apple) == before)

        for context in [ModelContext(container), ModelContext(try ModelContainer(for: Schema(CartApp.models), configurations: [ModelConfiguration(url: store.url)]))] {
            let cart = try #require(try context.fetch(FetchDescriptor<CartApp.CDCart>()).first)
            #expect(cart.status == "active")
            #expect(cart.createdAt == Date(timeIntervalSinceReferenceDate: 791474371.290433))
            #expect(cart.metadataJSON == Data(#"{"source":"legacy-fixture"}"#.utf8))
            #expect(cart.items.count == 1)
            let item = try #require(cart.items.first)
            #expect(item.quantity == 2 && item.availableStock == 5 && item.productId == "burger")
            #expect(item.unitPriceAmount == 5 && item.totalPriceAmount == 10)
            #expect(item.cart === cart)
        }

        // A second import of the same store finds it imported and adds nothing.
        let again = try container.importAppleStore(at: apple)
        #expect(again.wasImportedBefore && again.rows.isEmpty)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CartApp.CDCartItem>()) == 1)
        // The import is in the history, as another process's save would be.
        let authors = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).compactMap(\.author)
        #expect(authors.contains { $0.hasPrefix("Apple store import ") })
    }

    @Test func modelsWithNoHomeAreNamedAndNothingIsWritten() throws {
        let apple = try appleStoreCopy()
        defer { try? FileManager.default.removeItem(at: apple.deletingLastPathComponent()) }   // the test's scratch copy
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        let error = try #require(throws: SwiftDataError.self) { try container.importAppleStore(at: apple) }
        #expect(error == .schemaMismatch)
        for name in ["CDCart", "CDCartItem", "CDCartItemModifier"] {
            #expect(error.reason?.contains("model \(name) is not among the app's models") == true)
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 0)
        // Leaving them out on purpose imports what remains: nothing.
        #expect(try container.importAppleStore(at: apple, ignoring: ["CDCart", "CDCartItem", "CDCartItemModifier"]).rows.isEmpty)
    }

    @Test func aFileThatIsNotAnAppleStoreIsRefused() throws {
        let own = TemporaryStore()
        _ = try own.container(Note.self)
        let target = TemporaryStore()
        let container = try ModelContainer(for: Schema(CartApp.models), configurations: [ModelConfiguration(url: target.url)])
        #expect(throws: SwiftDataError.storeIsNotSQLite) { try container.importAppleStore(at: own.url) }
        #expect(throws: SwiftDataError.storeIsNotSQLite) { try container.importAppleStore(at: own.url.appendingPathExtension("missing")) }
    }

    /// Changes a copy of the Apple store with SQL, as another framework version or a damaged
    /// device would have left it.
    private func altered(_ apple: URL, _ sql: String) throws {
        let connection = try SQLiteConnection(path: apple.path, readOnly: false, create: false)
        try connection.execute(sql)
        connection.close()
    }

    @Test func storesOfNewerVersionsMirroredOnesAndDamagedOnesGetTheirOwnErrors() throws {
        let target = TemporaryStore()
        let container = try ModelContainer(for: Schema(CartApp.models), configurations: [ModelConfiguration(url: target.url)])
        let cases: [(sql: String?, truncate: Bool, error: SwiftDataError)] = [
            ("UPDATE Z_METADATA SET Z_VERSION = 2", false, .storeFromNewerVersion),
            ("CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY)", false, .cloudKitMirroredStore),
            ("UPDATE Z_MODELCACHE SET Z_CONTENT = substr(Z_CONTENT, 1, 100)", false, .storeIsCorrupt),
            ("DELETE FROM Z_MODELCACHE", false, .storeIsCorrupt),
            (nil, true, .storeIsCorrupt),
        ]
        for (sql, truncate, expected) in cases {
            let apple = try appleStoreCopy()
            defer { try? FileManager.default.removeItem(at: apple.deletingLastPathComponent()) }   // the test's scratch copy
            if let sql { try altered(apple, sql) }
            if truncate {
                let bytes = try Data(contentsOf: apple)
                try bytes.prefix(bytes.count / 2).write(to: apple)
            }
            let error = try #require(throws: SwiftDataError.self) { try container.importAppleStore(at: apple) }
            #expect(error == expected, "\(sql ?? "truncated"): \(error)")
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<CartApp.CDCart>()) == 0, "nothing was imported")
        }
    }

    @Test func aPropertyTheReaderCannotFindIsReportedAndImportedOnlyWhenIgnored() throws {
        let apple = try appleStoreCopy()
        defer { try? FileManager.default.removeItem(at: apple.deletingLastPathComponent()) }   // the test's scratch copy
        try altered(apple, "ALTER TABLE ZCDCART DROP COLUMN ZSTOREIMAGEURL")
        #expect(try AppleStoreFile(path: apple.path).verificationProblems() == ["CDCart.storeImageURL is not read: no column of ZCDCART holds it"])

        let target = TemporaryStore()
        let container = try ModelContainer(for: Schema(CartApp.models), configurations: [ModelConfiguration(url: target.url)])
        let error = try #require(throws: SwiftDataError.self) { try container.importAppleStore(at: apple) }
        #expect(error == .schemaMismatch)
        #expect(error.reason?.contains("CDCart.storeImageURL cannot be read") == true)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CartApp.CDCart>()) == 0)

        let imported = try container.importAppleStore(at: apple, ignoring: ["CDCart.storeImageURL"])
        #expect(imported.rows["CDCart"] == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<CartApp.CDCart>()).first?.storeImageURL == nil)
    }
}
