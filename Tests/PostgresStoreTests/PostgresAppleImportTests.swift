import Foundation
import Testing
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres

/// A server's models for the Core Data cart store of the shared fixtures (entity names as there).
enum ServerCart {
    @Model final class CDCart {
        @Attribute(.unique) var id: String
        var status: String
        var storeId: String
        var createdAt: Date
        var updatedAt: Date
        var context: String?
        var displayName: String?
        var maxItemCount: Int?
        var metadataJSON: Data?
        var minSubtotalAmount: Decimal?
        var minSubtotalCurrencyCode: String?
        var profileId: String?
        var storeImageURL: String?
        @Relationship(deleteRule: .cascade, inverse: \CDCartItem.cart) var items: [CDCartItem] = []
        init(id: String) { self.id = id; status = ""; storeId = ""; createdAt = .now; updatedAt = .now }
    }

    @Model final class CDCartItem {
        var id: String
        var productId: String
        var quantity: Int
        var unitPriceAmount: Decimal
        var availableStock: Int?
        var imageURL: String?
        var totalPriceAmount: Decimal?
        var totalPriceCurrencyCode: String?
        var unitPriceCurrencyCode: String?
        var cart: CDCart?
        @Relationship(deleteRule: .cascade) var modifiers: [CDCartItemModifier] = []
        init(id: String) { self.id = id; productId = ""; quantity = 0; unitPriceAmount = 0 }
    }

    @Model final class CDCartItemModifier {
        var id: String
        var name: String
        var priceDeltaAmount: Decimal
        var priceDeltaCurrencyCode: String
        var item: CDCartItem?
        init(id: String) { self.id = id; name = ""; priceDeltaAmount = 0; priceDeltaCurrencyCode = "" }
    }
}

/// A store an iPhone's Core Data wrote, imported into a PostgreSQL namespace by a server
/// (`container.importAppleStore(at:)`, and `osd import --from-apple … --into postgres://…`): its
/// rows and relationships, once.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresAppleImportTests {
    static let fixture: URL? = {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [checkout.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple-stores/cartkit-coredata-v1/CartStorage_v1.sqlite"),
                URL(fileURLWithPath: "/work/shared/fixtures/apple-stores/cartkit-coredata-v1/CartStorage_v1.sqlite")]
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    @Test(.enabled(if: fixture != nil, "the Apple-written fixture stores are not beside this checkout"))
    func aCoreDataStoreLandsInANamespaceOnce() throws {
        let fixture = try #require(Self.fixture).path
        let configuration = try PostgresServer.freshConfiguration("appleimport")
        let schema = Schema([ServerCart.CDCart.self, ServerCart.CDCartItem.self, ServerCart.CDCartItemModifier.self])
        let container = try ModelContainer(for: schema, configurations: [configuration])
        let imported = try container.importAppleStore(at: URL(fileURLWithPath: fixture))
        #expect(imported.rows == ["CDCart": 1, "CDCartItem": 1, "CDCartItemModifier": 0])
        #expect(imported.identifiers.count == 2)

        let reopened = try ModelContainer(for: schema, configurations: [configuration])
        let context = ModelContext(reopened)
        let cart = try #require(try context.fetch(FetchDescriptor<ServerCart.CDCart>()).first)
        #expect(cart.status == "active" && cart.items.map(\.quantity) == [2])
        #expect(cart.items.first?.unitPriceAmount == 5)
        // The map from Core Data's URIs is kept in the namespace, read after reopening.
        let uris = Array(imported.identifiers.keys)
        let kept = try reopened.persistentIdentifiers(forImportedAppleObjects: uris)
        #expect(kept == imported.identifiers)
        #expect(kept.values.contains(cart.persistentModelID))

        #expect(try container.importAppleStore(at: URL(fileURLWithPath: fixture)).wasImportedBefore)
        // Through the tools' protocol, as `osd import --from-apple … --into postgres://…` runs it.
        let tooling = try PostgresStoreAccess.openTooling(at: configuration.url.absoluteString, name: configuration.name, access: .writing)
        #expect(try AppleStoreImport.run(appleStoreAt: fixture, into: tooling, ignoring: []) == nil)
        #expect(try context.fetchCount(FetchDescriptor<ServerCart.CDCartItem>()) == 1)
        // The URI map's table is the store's own: the namespace verifies clean.
        #expect(try tooling.verificationProblems() == [])
    }
}
