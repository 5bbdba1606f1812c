import Foundation
import Testing
@testable import OpenSwiftData

/// The stores Apple's frameworks wrote, in the workplace's shared fixtures (never copied into the
/// repository): `../shared/fixtures/apple-stores` beside the checkout.
enum AppleStoreFixtures {
    static let folder: URL? = {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            ProcessInfo.processInfo.environment["OSD_APPLE_STORES"].map { URL(fileURLWithPath: $0) },
            checkout.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple-stores"),
            URL(fileURLWithPath: "/work/shared/fixtures/apple-stores"),
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("README.md").path) }
    }()

    static let skipMessage: Comment = "the Apple-written fixture stores (../shared/fixtures/apple-stores) are not beside this checkout"

    /// A store file of the fixtures, by folder and file name.
    static func store(_ folder: String, _ file: String) throws -> URL {
        try #require(self.folder).appendingPathComponent(folder).appendingPathComponent(file)
    }

    /// A copy of a fixture store (with its `-wal` and `-shm`) in a scratch folder of its own, which
    /// the caller removes: opening a WAL store writes beside it.
    static func scratchCopy(_ folder: String, _ file: String) throws -> (store: URL, folder: URL) {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let source = try store(folder, file)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.appendingPathComponent(file).path + suffix)
        }
        return (target.appendingPathComponent(file), target)
    }

    /// The `Z_MODELCACHE` bytes of a fixture store, read through a read-only connection.
    static func modelCache(_ folder: String, _ file: String) throws -> [UInt8] {
        let connection = try SQLiteConnection(path: "file:\(try store(folder, file).path)?immutable=1", readOnly: true, create: false)
        let statement = try connection.uncachedStatement("SELECT Z_CONTENT FROM Z_MODELCACHE")
        guard try statement.step(), case .blob(let bytes) = statement.value(0) else { throw SwiftDataError.storeIsCorrupt }
        return bytes
    }
}

/// Raw DEFLATE, binary property lists and keyed archives: what reading an Apple-written store's
/// model takes, checked on known inputs and on the stores Apple's frameworks wrote.
@Suite struct AppleModelTests {
    @Test func inflatesStoredFixedAndDynamicBlocks() throws {
        let stored: [UInt8] = [1, 17, 0, 238, 255, 115, 116, 111, 114, 101, 100, 32, 98, 108, 111, 99, 107, 32, 116, 101, 120, 116]
        #expect(String(decoding: try Inflate.decompress(stored), as: UTF8.self) == "stored block text")
        let fixed: [UInt8] = [75, 76, 74, 78, 68, 69, 10, 25, 169, 57, 57, 249, 200, 36, 0]
        #expect(String(decoding: try Inflate.decompress(fixed), as: UTF8.self) == "abcabcabcabcabcabc hello hello hello")
        let text = String(decoding: try Inflate.decompress(Self.dynamic), as: UTF8.self)
        #expect(text.utf8.count == 2110)
        #expect(text.hasPrefix("store fetch history model context schema context store trip "))
        let words = text.split(separator: " ")
        #expect(words.count == 300)
        #expect(Set(words).isSubset(of: ["model", "context", "fetch", "save", "predicate", "store", "history", "container", "schema", "trip"]))
    }

    @Test func damagedDeflateDataThrows() {
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([]) }
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([0xFF]) }                  // reserved block type
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress(Array(Self.dynamic.prefix(100))) }   // cut short
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([1, 5, 0, 0, 0]) }         // stored length mismatch
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress(Self.dynamic, limit: 1000) }
        // Every single-byte change either throws or inflates to something else: never a trap.
        for index in stride(from: 0, to: Self.dynamic.count, by: 7) {
            var damaged = Self.dynamic
            damaged[index] ^= 0x5A
            _ = try? Inflate.decompress(damaged)
        }
    }

    @Test func damagedPropertyListsThrow() {
        #expect(throws: BinaryPropertyList.Failure.self) { try BinaryPropertyList.parse(Array("bplist00".utf8)) }
        #expect(throws: BinaryPropertyList.Failure.self) { try BinaryPropertyList.parse(Array(repeating: 0, count: 64)) }
        // An array that contains itself: offset table [8], one object, top 0.
        var looping: [UInt8] = Array("bplist00".utf8) + [0xA1, 0x00]
        let table = looping.count
        looping += [8]
        looping += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        #expect(throws: BinaryPropertyList.Failure.self) { try BinaryPropertyList.parse(looping) }
    }

    @Test(.enabled(if: AppleStoreFixtures.folder != nil, AppleStoreFixtures.skipMessage))
    func readsTheModelSwiftDataCachedInItsStore() throws {
        let model = try AppleModel(modelCache: AppleStoreFixtures.modelCache("cartkit-swiftdata-v1", "CartKitSwiftData_v1.sqlite"))
        #expect(model.entities.map(\.name) == ["CartItemModel", "CartItemModifierModel", "CartModel"])
        let item = try #require(model.entities.first { $0.name == "CartItemModel" })
        let quantity = try #require(item.attributes.first { $0.name == "quantity" })
        #expect(quantity.type == .integer64 && !quantity.isOptional)
        #expect(item.attributes.first { $0.name == "availableStock" }?.isOptional == true)
        #expect(item.attributes.first { $0.name == "totalPriceAmount" }?.type == .decimal)
        #expect(item.uniquenessConstraints == [["id"]])
        let modifiers = try #require(item.relationships.first { $0.name == "modifiers" })
        #expect(modifiers.destination == "CartItemModifierModel" && modifiers.isToMany && modifiers.inverse == nil)
        #expect(modifiers.deleteRule == 2)
        let cart = try #require(model.entities.first { $0.name == "CartModel" })
        #expect(cart.attributes.first { $0.name == "createdAt" }?.type == .date)
    }

    @Test(.enabled(if: AppleStoreFixtures.folder != nil, AppleStoreFixtures.skipMessage))
    func readsCoreDataModelsWithManyToManyAndInheritance() throws {
        let books = try AppleModel(modelCache: AppleStoreFixtures.modelCache("coredatastack-testmodel", "TestModel.sqlite"))
        #expect(books.entities.map(\.name) == ["Author", "Book"])
        let authors = try #require(books.entities.last?.relationships.first)
        #expect(authors.name == "authors" && authors.destination == "Author" && authors.inverse == "books" && authors.isToMany)
        #expect(books.entities.first?.attributes.map(\.name) == ["firstName", "lastName"])

        let wire = try AppleModel(modelCache: AppleStoreFixtures.modelCache("wire-store2-99", "store2-99-0.sqlite"))
        #expect(wire.entities.count == 25)
        #expect(wire.entities.first { $0.name == "ClientMessage" }?.superentity == "Message")
        #expect(wire.entities.contains { $0.relationships.contains(where: \.isOrdered) })
    }

    /// Damaged caches (bytes changed, cut short) of every fixture throw or read as some model;
    /// none traps, loops or reads out of bounds. Seeded, so a failure repeats.
    @Test(.enabled(if: AppleStoreFixtures.folder != nil, AppleStoreFixtures.skipMessage), arguments: [
        ("cartkit-swiftdata-v1", "CartKitSwiftData_v1.sqlite"), ("wire-store2-99", "store2-99-0.sqlite"),
    ])
    func damagedModelCachesThrowAndNeverTrap(_ folder: String, _ file: String) throws {
        let cache = try AppleStoreFixtures.modelCache(folder, file)
        let list = try Inflate.decompress(cache)
        var generator = SeededGenerator(seed: 0x5EED)
        var thrown = 0
        for round in 0..<300 {
            var damaged = round.isMultiple(of: 2) ? cache : list
            for _ in 0..<(1 + round % 4) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 5 == 0 { damaged = Array(damaged.prefix(Int.random(in: 0..<damaged.count, using: &generator))) }
            do {
                if round.isMultiple(of: 2) {
                    _ = try AppleModel(modelCache: damaged)
                } else {
                    _ = try AppleModel(try KeyedArchive(try BinaryPropertyList.parse(damaged)))
                }
            } catch {
                thrown += 1
            }
        }
        #expect(thrown > 0, "damage is noticed")
    }

    /// 300 words from a list of ten, compressed with a dynamic Huffman block (zlib, level 9).
    static let dynamic: [UInt8] = [
        133, 85, 209, 142, 131, 48, 12, 251, 21, 126, 13, 177, 158, 64, 218, 198, 4, 213, 233, 246, 247, 119, 107, 186, 198, 118, 211,
        221, 11, 80, 154, 58, 137, 19, 167, 103, 222, 143, 52, 125, 165, 188, 172, 211, 186, 157, 127, 171, 231, 116, 219, 47, 233, 58,
        45, 251, 61, 167, 159, 60, 157, 203, 154, 110, 179, 47, 203, 129, 124, 108, 143, 106, 87, 247, 207, 249, 59, 201, 201, 55, 222,
        251, 221, 32, 94, 166, 2, 207, 190, 11, 60, 153, 131, 195, 242, 89, 30, 124, 8, 34, 168, 160, 150, 214, 227, 72, 151, 109, 153,
        115, 106, 246, 246, 95, 18, 43, 136, 110, 75, 16, 100, 83, 30, 197, 153, 113, 49, 32, 74, 35, 110, 89, 207, 219, 61, 29, 154,
        183, 67, 217, 118, 99, 160, 90, 151, 109, 136, 238, 5, 86, 211, 64, 54, 227, 36, 20, 199, 215, 110, 74, 148, 15, 138, 83, 29,
        66, 203, 56, 210, 199, 230, 49, 2, 202, 57, 124, 74, 146, 178, 212, 96, 60, 214, 222, 198, 188, 6, 217, 104, 154, 204, 183, 7,
        139, 244, 88, 106, 29, 33, 102, 2, 189, 230, 168, 80, 137, 168, 233, 57, 214, 17, 115, 149, 43, 69, 29, 110, 115, 42, 109, 229,
        157, 193, 14, 33, 70, 209, 42, 176, 175, 138, 241, 47, 51, 15, 67, 130, 98, 66, 161, 73, 100, 32, 134, 161, 4, 70, 239, 190, 6,
        129, 238, 187, 217, 98, 150, 76, 68, 55, 187, 184, 125, 128, 129, 255, 134, 94, 63, 155, 88, 35, 32, 65, 63, 170, 226, 211, 6,
        231, 157, 241, 23, 11, 129, 91, 202, 163, 141, 228, 66, 201, 1, 123, 84, 200, 200, 72, 123, 175, 215, 100, 4, 97, 82, 71, 7,
        252, 242, 125, 152, 169, 40, 34, 255, 51, 152, 100, 22, 158, 170, 63, 162, 10, 220, 72, 25, 112, 34, 197, 87, 148, 76, 110, 31,
        253, 178, 227, 18, 136, 7, 139, 22, 156, 210, 212, 42, 245, 55, 3, 30, 233, 197, 16, 169, 221, 158, 40, 93, 25, 140, 240, 51,
        188, 113, 168, 23, 232, 74, 44, 160, 191,
    ]
}
