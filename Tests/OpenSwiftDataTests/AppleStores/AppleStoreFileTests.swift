import Foundation
import Testing
@testable import OpenSwiftData

/// Stores Apple's frameworks wrote, read as the tools read them (`AppleStoreFile`): every row of
/// every fixture decodes to the model's types, relationships of each kind list their rows, and
/// nothing is ever written.
@Suite(.enabled(if: AppleStoreFixtures.folder != nil, AppleStoreFixtures.skipMessage))
struct AppleStoreFileTests {
    /// A copy of a fixture store in a folder of its own (opening a WAL store writes beside it).
    private func copy(_ folder: String, _ file: String) throws -> (store: AppleStoreFile, folder: URL) {
        let (store, scratch) = try AppleStoreFixtures.scratchCopy(folder, file)
        return (try AppleStoreFile(path: store.path), scratch)
    }

    private func table(_ store: AppleStoreFile, _ entity: String) throws -> ModelTable {
        ModelTable(try #require(store.schema.entities.first { $0.name == entity }))
    }

    private func rows(_ store: AppleStoreFile, _ entity: String) throws -> [ModelRow] {
        let table = try table(store, entity)
        var rows: [ModelRow] = []
        try store.forEachRow(of: table) { rows.append($0) }
        return rows
    }

    private func value(_ row: ModelRow, _ name: String, in store: AppleStoreFile, of entity: String) throws -> TypedValue {
        let table = try table(store, entity)
        return row.attributes[try #require(table.attributes.firstIndex { $0.name == name })]
    }

    @Test(arguments: [
        ("cartkit-swiftdata-v1", "CartKitSwiftData_v1.sqlite"), ("cartkit-coredata-v1", "CartStorage_v1.sqlite"),
        ("coredatastack-testmodel", "TestModel.sqlite"), ("wire-store2-99", "store2-99-0.sqlite"),
    ])
    func everyRowOfEveryFixtureDecodes(_ folder: String, _ file: String) throws {
        let (store, copyFolder) = try copy(folder, file)
        defer { try? FileManager.default.removeItem(at: copyFolder) }   // scratch copy of the test
        #expect(try store.verificationProblems() == [])
        #expect(try AppleStoreFile.isAppleStore(at: store.path))
        #expect(store.storeUUID?.count == 36)
    }

    @Test func coreDataRowsReadAsTheirTypesWithTheirRelationships() throws {
        let (store, folder) = try copy("cartkit-coredata-v1", "CartStorage_v1.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // scratch copy of the test
        let item = try #require(try rows(store, "CDCartItem").first)
        #expect(try value(item, "quantity", in: store, of: "CDCartItem") == .int(2))
        #expect(try value(item, "availableStock", in: store, of: "CDCartItem") == .int(5))
        #expect(try value(item, "totalPriceAmount", in: store, of: "CDCartItem") == .decimal(10))
        #expect(try value(item, "productId", in: store, of: "CDCartItem") == .string("burger"))
        #expect(item.foreignKeys == [1], "the item's cart")
        let cart = try #require(try rows(store, "CDCart").first)
        #expect(cart.links == [[1]], "the cart's items, through the inverse's column")
        #expect(try value(cart, "createdAt", in: store, of: "CDCart") == .date(Date(timeIntervalSinceReferenceDate: 791474371.290433)))
        #expect(try value(cart, "metadataJSON", in: store, of: "CDCart") == .data(Array(#"{"source":"legacy-fixture"}"#.utf8)))
    }

    @Test func inheritanceAndJoinTablesOfAMessagingStore() throws {
        let (store, folder) = try copy("wire-store2-99", "store2-99-0.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // scratch copy of the test
        #expect(try rows(store, "User").count == 22)
        // Sub-entities share their root's table; each reads its own rows.
        #expect(try rows(store, "ClientMessage").count == 3)
        #expect(try rows(store, "SystemMessage").count == 21)
        #expect(try rows(store, "Message").isEmpty)
        // A many-to-many through a join table whose column name Core Data numbered (Z_24USERS1).
        let users = try #require(try table(store, "SystemMessage").links.firstIndex { $0.name == "users" })
        #expect(try rows(store, "SystemMessage").contains { !$0.links[users].isEmpty })
    }

    @Test func orderedRelationshipsListTheirRowsInTheirOrder() throws {
        let (store, folder) = try copy("wire-store2-99", "store2-99-0.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // scratch copy of the test
        // Conversation 17's ordered participants, as Core Data keeps their places in the join
        // table (Z_FOK_24LASTSERVERSYNCEDACTIVEPARTICIPANTS: 9 → 2048, 18 → 3072, 3 → 4096), not
        // by key; and user 3's conversations by theirs (17 → 2048, 19 → 3072, 18 → 4096, 10 → 5120).
        let participants = try #require(try table(store, "Conversation").links.firstIndex { $0.name == "lastServerSyncedActiveParticipants" })
        let conversation = try #require(try rows(store, "Conversation").first { $0.id == 17 })
        #expect(conversation.links[participants] == [9, 18, 3])
        let conversations = try #require(try table(store, "User").links.firstIndex { $0.name == "lastServerSyncedActiveConversations" })
        let user = try #require(try rows(store, "User").first { $0.id == 3 })
        #expect(user.links[conversations] == [17, 19, 18, 10])
    }

    @Test func theToolsNeverWriteAndSayWhatTheyCannotDo() throws {
        let (store, folder) = try copy("cartkit-swiftdata-v1", "CartKitSwiftData_v1.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }   // scratch copy of the test
        #expect(throws: SwiftDataError.storeIsReadOnly) { _ = try AppleStoreFile.openTooling(at: store.path, name: "default", access: .writing) }
        #expect(throws: SwiftDataError.storeIsReadOnly) { try store.transaction {} }
        let table = try table(store, "CartModel")
        #expect(throws: SwiftDataError.unsupportedPredicate) {
            _ = try store.rowCount(of: table, filter: .boolean(true))
        }
        let cart = try #require(try rows(store, "CartModel").first)
        #expect(try value(cart, "status", in: store, of: "CartModel") == .string("active"))

        // An OpenSwiftData store is not taken for one.
        let own = TemporaryStore()
        _ = try own.container(Note.self)
        #expect(try !AppleStoreFile.isAppleStore(at: own.url.path))
    }
}

/// Apple-written stores damaged at random (bytes changed past the file header, seeded): opening,
/// verifying, reading every row and importing each throw a `SwiftDataError` or succeed; none
/// traps, and a failed import leaves the target store as it was.
@Suite(.enabled(if: AppleStoreFixtures.folder != nil, AppleStoreFixtures.skipMessage))
struct DamagedAppleStoreTests {
    @Test(arguments: [("cartkit-coredata-v1", "CartStorage_v1.sqlite"), ("wire-store2-99", "store2-99-0.sqlite")])
    func damagedStoresThrowOrReadAndNeverTrap(_ folder: String, _ file: String) throws {
        let original = try Data(contentsOf: try AppleStoreFixtures.store(folder, file))
        var generator = SeededGenerator(seed: UInt64(original.count))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-damaged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }   // the test's scratch copies
        let intact = scratch.appendingPathComponent("intact.sqlite")
        try original.write(to: intact)
        #expect(try AppleStoreFile(path: intact.path).verificationProblems() == [])
        // Any error other than a SwiftDataError fails the test, as a trap would.
        for round in 0..<40 {
            var bytes = [UInt8](original)
            for _ in 0..<(1 + round % 8) {
                bytes[Int.random(in: 100..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let path = scratch.appendingPathComponent("round\(round).sqlite").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                let store = try AppleStoreFile(path: path)
                _ = try store.verificationProblems()
                for entity in store.schema.entities {
                    try store.forEachRow(of: ModelTable(entity)) { _ in }
                }
            } catch is SwiftDataError {
                continue
            }
        }
    }
}
