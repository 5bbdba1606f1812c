import Foundation
import Testing
@testable import OpenSwiftData

@Model final class DNLedgerLine {
    var amount: Decimal
    var adjustment: Decimal?
    init(amount: Decimal, adjustment: Decimal?) {
        self.amount = amount
        self.adjustment = adjustment
    }
}

/// Foundation orders a `Decimal` NaN before every number and equal to itself (`Decimal.nan < -1`
/// and `Decimal.nan == .nan` are true, `Decimal.nan > 0` is false): the store's comparisons and
/// sorts give what Swift gives, on every backend.
@Suite struct DecimalNaNTests {
    let store = TemporaryStore()
    static let amounts: [Decimal] = [.nan, -1, 0, Decimal(string: "0.5")!, 1, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude]

    @Test(arguments: Backend.allCases)
    func comparisonsAndSortsOfANaNAgreeWithSwift(_ backend: Backend) throws {
        do {
            let context = ModelContext(try store.container(DNLedgerLine.self, backend: backend))
            for (index, amount) in Self.amounts.enumerated() {
                context.insert(DNLedgerLine(amount: amount, adjustment: index % 3 == 0 ? nil : amount))
            }
            try context.save()
        }
        let context = ModelContext(try store.container(DNLedgerLine.self, backend: backend))
        let lines = try context.fetch(FetchDescriptor<DNLedgerLine>())
        #expect(lines.count == Self.amounts.count)
        for bound in [Decimal.nan, -1, 0, 1] {
            let predicates: [(String, Predicate<DNLedgerLine>)] = [
                ("<", #Predicate { $0.amount < bound }), ("<=", #Predicate { $0.amount <= bound }),
                (">", #Predicate { $0.amount > bound }), (">=", #Predicate { $0.amount >= bound }),
                ("==", #Predicate { $0.amount == bound }), ("!=", #Predicate { $0.amount != bound }),
                ("optional <", #Predicate { $0.adjustment != nil && $0.adjustment! < bound }),
            ]
            for (name, predicate) in predicates {
                let stored = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.persistentModelID)
                let expected = try lines.filter { try predicate.evaluate($0) }.map(\.persistentModelID)
                #expect(Set(stored) == Set(expected), "amount \(name) \(bound)")
                #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "count of amount \(name) \(bound)")
            }
        }
        for order in [SortOrder.forward, .reverse] {
            let sorted = try context.fetch(FetchDescriptor<DNLedgerLine>(sortBy: [SortDescriptor(\.amount, order: order)])).map { "\($0.amount)" }
            #expect(sorted == lines.sorted(using: SortDescriptor(\.amount, order: order)).map { "\($0.amount)" })
        }
    }

    /// A store written when NaN sorted last is rewritten once, when it is next opened for saving.
    @Test func aStoreWrittenWhenNaNSortedLastIsRewrittenOnce() throws {
        do {
            let context = ModelContext(try store.container(DNLedgerLine.self, backend: .sqlite))
            for amount in [Decimal.nan, 1, -1] { context.insert(DNLedgerLine(amount: amount, adjustment: amount)) }
            try context.save()
        }
        // As that version wrote it: NaN as the byte 0x03, and no record of the upgrade.
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("UPDATE \"DNLedgerLine\" SET amount = X'03', adjustment = X'03' WHERE amount = X'00'; DELETE FROM osd_metadata WHERE key = 'decimalNaN'")
        let reader = ModelContext(try store.container(DNLedgerLine.self, allowsSave: false, backend: .sqlite))
        #expect(try reader.fetch(FetchDescriptor<DNLedgerLine>()).contains { $0.amount.isNaN }, "the old bytes still read as NaN")
        let old = try connection.uncachedStatement("SELECT count(*) FROM \"DNLedgerLine\" WHERE amount = X'03'")
        #expect(try old.step() && old._int64(0) == 1, "a configuration that does not allow saves changes nothing")
        old.reset()
        let context = ModelContext(try store.container(DNLedgerLine.self, backend: .sqlite))
        let sorted = try context.fetch(FetchDescriptor<DNLedgerLine>(sortBy: [SortDescriptor(\.adjustment)])).map { "\($0.amount)" }
        #expect(sorted == ["NaN", "-1", "1"])
        let zero = Decimal(0)
        #expect(try context.fetchCount(FetchDescriptor<DNLedgerLine>(predicate: #Predicate { $0.amount < zero })) == 2)
        let upgraded = try connection.uncachedStatement("SELECT value FROM osd_metadata WHERE key = 'decimalNaN'")
        #expect(try upgraded.step() && upgraded._string(0) == "first")
    }
}
