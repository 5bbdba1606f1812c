import Foundation
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
import Testing

/// The store reads its history a page at a time, each page after the last transaction of the one
/// before, so that every statement has a limit PostgreSQL plans an index read for.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresHistoryPagingTests {
    @Test func historyReadInPagesHoldsEveryTransactionOnceInOrder() throws {
        let configuration = try PostgresServer.freshConfiguration("historypages")
        let container = try ModelContainer(for: Poster.self, configurations: configuration)
        let context = ModelContext(container)
        for number in 0..<10 {
            context.insert(Poster(label: "p\(number)"))
            try context.save()
        }
        let entity = try #require(container.schema.entity(for: Poster.self))
        let backend = try #require(container.store(for: entity) as? PostgresBackend)
        let whole = try backend.historyTransactions(after: 0, pageRows: 1_000)
        #expect(whole.count == 10)
        #expect(whole.map(\.id) == whole.map(\.id).sorted())
        for pageRows in [1, 3, 5, 10, 11] {
            #expect(try backend.historyTransactions(after: 0, pageRows: pageRows).map(\.id) == whole.map(\.id), "pages of \(pageRows)")
        }
        #expect(try backend.historyTransactions(after: whole[2].id, pageRows: 3).map(\.id) == whole.dropFirst(3).map(\.id))
        #expect(try backend.historyTransactions(after: whole[9].id, pageRows: 3).isEmpty)
        let read = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(read.count == 10)
    }
}
