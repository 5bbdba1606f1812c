import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// A server runs for months: containers it opens and lets go must not keep connections open.
@Suite struct PostgresConnectionLifetimeTests {
    /// How many connections the server has open for the store of `configuration`, by the
    /// application name they carry (other tests running meanwhile have names of their own).
    static func openConnections(of configuration: PostgresStoreConfiguration) throws -> Int {
        let rows = try PostgresServer.sql("SELECT count(*)::text FROM pg_stat_activity WHERE application_name LIKE '%\(configuration.name)'")
        return Int(rows.first ?? "") ?? -1
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func releasedContainersCloseTheirConnections() throws {
        let configuration = try PostgresServer.freshConfiguration()
        for number in 0..<20 {
            let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
            let context = ModelContext(container)
            context.insert(Poster(label: "p\(number)"))
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Poster>()) == number + 1)
            #expect(try Self.openConnections(of: configuration) > 0)
        }
        var open = try Self.openConnections(of: configuration)
        for _ in 0..<300 where open > 0 {
            Thread.sleep(forTimeInterval: 0.1)
            open = try Self.openConnections(of: configuration)
        }
        #expect(open == 0, "\(open) connections left open by 20 released containers")
    }
}
