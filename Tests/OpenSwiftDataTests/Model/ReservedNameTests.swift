import Foundation
import Testing
@testable import OpenSwiftData

/// Properties named with Swift keywords and SQL keywords, as real models name them.
@Model
final class Ledger {
    var `default`: Bool
    var `where`: String
    var order: Int
    var group: String?
    var select: [String] = []
    var rowid: Int
    var oid: Int
    @Relationship(deleteRule: .cascade, inverse: \LedgerLine.`in`) var `for`: [LedgerLine] = []

    init(order: Int) {
        self.default = order % 2 == 0
        self.where = "row \(order)"
        self.order = order
        self.rowid = order * 10
        self.oid = -order
    }
}

@Model
final class LedgerLine {
    var `in`: Ledger?
    var `case`: String
    init(case: String) { self.case = `case` }
}

/// A property named like the column that keys every table.
@Model
final class KeyClash {
    var _pk: Int
    init(_pk: Int) { self._pk = _pk }
}

/// Two properties whose names differ only in case, which SQLite's columns cannot tell apart.
@Model
final class CaseClash {
    var url: String
    var URL: String
    init(url: String) {
        self.url = url
        self.URL = url.uppercased()
    }
}

@Suite struct ReservedNameTests {
    @Test(arguments: Backend.allCases)
    func keywordNamedPropertiesAreStoredFetchedAndSorted(_ backend: Backend) throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Ledger.self, backend: backend))
            for number in 1...4 {
                let ledger = Ledger(order: number)
                context.insert(ledger)
                ledger.for = [LedgerLine(case: "c\(number)")]
            }
            try context.save()
        }
        let context = ModelContext(try store.container(Ledger.self, backend: backend))
        let fetched = try context.fetch(FetchDescriptor<Ledger>(
            predicate: #Predicate { $0.default && $0.rowid > 10 && $0.where != "" },
            sortBy: [SortDescriptor(\.order, order: .reverse)]))
        #expect(fetched.map(\.order) == [4, 2])
        #expect(fetched.map(\.oid) == [-4, -2])
        #expect(fetched.map(\.where) == ["row 4", "row 2"])
        #expect(fetched.first?.for.map(\.case) == ["c4"])
        #expect(fetched.first?.for.first?.in === fetched.first)
        fetched[0].group = "g"
        try context.save()
        let regrouped = try ModelContext(try store.container(Ledger.self, backend: backend))
            .fetch(FetchDescriptor<Ledger>(predicate: #Predicate { $0.group != nil }))
        #expect(regrouped.map(\.order) == [4])
    }

    /// The built-in stores key every table by `_pk`; a custom store has its own layout.
    @Test(arguments: Backend.allCases.filter { $0 != .dataStore })
    func aPropertyNamedLikeThePrimaryKeyColumnIsAClearError(_ backend: Backend) throws {
        let store = TemporaryStore()
        let error = #expect(throws: SwiftDataError.self) { try store.container(KeyClash.self, backend: backend) }
        #expect(error?.reason?.contains("KeyClash._pk") == true, "\(String(describing: error))")
        if backend == .sqlite { #expect(!FileManager.default.fileExists(atPath: store.url.path), "nothing was created") }
    }

    @Test func propertiesWhoseNamesDifferOnlyInCaseAreAClearErrorInSQLite() throws {
        let store = TemporaryStore()
        let error = #expect(throws: SwiftDataError.self) { try store.container(CaseClash.self, backend: .sqlite) }
        #expect(error?.reason?.contains("CaseClash.URL") == true && error?.reason?.contains("CaseClash.url") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: store.url.path), "nothing was created")
    }
}
