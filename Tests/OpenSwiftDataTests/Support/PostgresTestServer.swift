import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// The PostgreSQL server the tests use, when `OSD_POSTGRES_URL` names one
/// (`Scripts/with-postgres.sh swift test` starts a throwaway server and sets it).
enum PostgresTestServer {
    static let url: URL? = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"].flatMap(URL.init(string:))

    /// A configuration whose namespace is named after `location` (a test's temporary store URL),
    /// so that each test has its own tables and reopening the same URL reopens them.
    static func configuration(for location: URL, schema: Schema? = nil, allowsSave: Bool = true) -> PostgresStoreConfiguration {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in location.standardizedFileURL.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return PostgresStoreConfiguration(name: "t" + String(hash, radix: 36), schema: schema, url: url ?? URL(string: "postgres://absent@127.0.0.1/none")!, allowsSave: allowsSave)
    }
}

/// Says visibly when the PostgreSQL runs of the behavioural suites are skipped.
@Suite struct PostgresAvailabilityTests {
    @Test(.enabled(if: PostgresTestServer.url != nil, "OSD_POSTGRES_URL is not set: the PostgreSQL runs are skipped (run `Scripts/with-postgres.sh swift test`)"))
    func postgresServerIsAvailable() throws {
        let container = try ModelContainer(for: Schema([]), configurations: [PostgresStoreConfiguration(name: "availability", url: PostgresTestServer.url!)])
        #expect(container.configurations.isEmpty)
    }
}
