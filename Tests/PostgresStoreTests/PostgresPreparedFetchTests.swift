import Foundation
@testable import OpenSwiftDataPostgres
import OpenSwiftData
import PostgresNIO
import Testing

/// Fetches run as statements prepared once per connection and then only executed, with each
/// fetch's own values: every execution answers for its values, also after the server has
/// settled on one plan for the statement (from the sixth execution on), and a connection keeps a
/// bounded number of them however many shapes of fetch it runs.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresPreparedFetchTests {
    @Test func aPreparedFetchAnswersForEachExecutionsValues() throws {
        let configuration = try PostgresServer.freshConfiguration("prepared")
        let container = try ModelContainer(for: Schema([Ticket.self]), configurations: [configuration])
        let writer = ModelContext(container)
        // Skewed: most tickets count 0, a few count more, so that one plan does not suit all.
        var tickets: [(code: String, count: Int)] = []
        for number in 0..<400 {
            let count = number % 40 == 0 ? number : 0
            tickets.append(("T\(number)", count))
            writer.insert(Ticket(code: "T\(number)", title: "ticket \(number)", count: count, score: Double(number)))
        }
        try writer.save()

        let codes = ["T7", "T399", "T400", "", "T0", "t7", "T7", "T123", "T39", "T40"]
        for code in codes {
            let context = ModelContext(container)
            let found = try context.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.code == code })).map(\.code)
            #expect(found == tickets.filter { $0.code == code }.map(\.code), "code \(code)")
        }
        for minimum in [0, 1, 400, 40, 0, 1, 200, 399, -1, 0, 1] {
            let context = ModelContext(container)
            let descriptor = FetchDescriptor<Ticket>(predicate: #Predicate { $0.count >= minimum }, sortBy: [SortDescriptor(\.code)])
            let expected = tickets.filter { $0.count >= minimum }.map(\.code).sorted()
            #expect(try context.fetch(descriptor).map(\.code) == expected, "minimum \(minimum)")
            #expect(try context.fetchCount(descriptor) == expected.count, "minimum \(minimum)")
            #expect(try context.fetchIdentifiers(descriptor).count == expected.count, "minimum \(minimum)")
        }
    }

    /// The keys of faults and relationships go as one `int8[]` argument, written in PostgreSQL's
    /// binary form for arrays: every key arrives as it was, in order.
    @Test(arguments: [[Int64](), [0], [Int64.min, -1, 0, 1, Int64.max], Array(stride(from: Int64(-5_000), to: 5_000, by: 7))])
    func keysReachTheServerAsTheyWere(_ keys: [Int64]) throws {
        let configuration = try PostgresServer.freshConfiguration("prepared")
        let session = try PostgresSession(try PostgresLocation(configuration))
        let sql = "SELECT k, n FROM unnest($1::int8[]) WITH ORDINALITY AS a(k, n) ORDER BY n"
        let rows = try session.read([.prepared(sql, [PostgresSQL.int8Array(keys)])])[0].map(PostgresRowReader.init)
        #expect(rows.map { $0._int64(0) } == keys)
        #expect(rows.map { $0._int64(1) } == keys.indices.map { Int64($0 + 1) })
    }

    @Test func aConnectionKeepsABoundedNumberOfPreparedStatements() throws {
        let configuration = try PostgresServer.freshConfiguration("prepared")
        let session = try PostgresSession(try PostgresLocation(configuration))
        let shapes = PostgresSession.preparedStatementLimit + 50
        for shape in 0..<shapes {
            let rows = try session.read([.prepared("SELECT $1::int8 + \(shape)", [PostgresData(int64: Int64(shape))])])[0]
            #expect(rows.first.map { PostgresRowReader($0)._int64(0) } == Int64(2 * shape))
        }
        let prepared = try session.read([.parsed("SELECT count(*) FROM pg_prepared_statements", PostgresBindings())])[0]
        let count = try #require(prepared.first.map { PostgresRowReader($0)._int64(0) })
        #expect(count > 0 && count <= Int64(PostgresSession.preparedStatementLimit + 1), "\(count) statements prepared")
    }
}
