import Foundation
import Testing
@testable import OpenSwiftData

/// `fetchCount` and `fetchIdentifiers` answer from the same state as `fetch`: after other
/// contexts' saves (merged first by all three) and with this context's pending changes, in random
/// interleavings, on a store reopened at the end.
@Suite struct FetchAgreementTests {
    static func item(_ name: String, count: Int) -> Item {
        Item(name: name, note: nil, count: count, optionalCount: nil, score: 0, optionalScore: nil, flag: false,
             date: Date(timeIntervalSinceReferenceDate: 0), price: 0, big: 0, code: UUID(), mood: .calm)
    }

    /// Checks that the three answers agree for a few descriptors, with and without pending changes.
    static func expectAgreement(in context: ModelContext, step: Int, seed: UInt64) throws {
        for minimum in [0, 5, 9] {
            for includePending in [true, false] {
                var descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.count >= minimum })
                descriptor.includePendingChanges = includePending
                let models = try context.fetch(descriptor)
                #expect(try context.fetchCount(descriptor) == models.count, "seed \(seed), step \(step), count >= \(minimum), pending \(includePending)")
                #expect(Set(try context.fetchIdentifiers(descriptor)) == Set(models.map(\.persistentModelID)), "seed \(seed), step \(step)")
            }
        }
    }

    @Test(arguments: 0..<4)
    func countsAndIdentifiersAgreeWithFetchesUnderOtherContextsSaves(round: Int) throws {
        let seed = UInt64.random(in: 1...1_000_000)
        var random = SeededGenerator(seed: seed)
        let store = TemporaryStore()
        let container = try store.container(Item.self)
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        for index in 0..<10 { writer.insert(Self.item("item \(index)", count: index)) }
        try writer.save()
        for step in 0..<30 {
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                writer.insert(Self.item("new \(step)", count: Int.random(in: 0..<12, using: &random)))
                try writer.save()
            case 1:
                if let victim = try writer.fetch(FetchDescriptor<Item>()).randomElement(using: &random) {
                    writer.delete(victim)
                    try writer.save()
                }
            case 2:
                if let changed = try writer.fetch(FetchDescriptor<Item>()).randomElement(using: &random) {
                    changed.count = Int.random(in: 0..<12, using: &random)
                    try writer.save()
                }
            case 3:
                // A pending change in the reader, left unsaved.
                if let changed = try reader.fetch(FetchDescriptor<Item>()).randomElement(using: &random) {
                    changed.count = Int.random(in: 0..<12, using: &random)
                }
            default:
                if reader.hasChanges { try reader.save() }
            }
            try Self.expectAgreement(in: reader, step: step, seed: seed)
        }
        if reader.hasChanges { try reader.save() }
        let reopened = ModelContext(try store.container(Item.self))
        try Self.expectAgreement(in: reopened, step: -1, seed: seed)
        #expect(try reopened.fetchCount(FetchDescriptor<Item>()) == (try reader.fetchCount(FetchDescriptor<Item>())))
    }
}
