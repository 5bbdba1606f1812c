import Foundation
import OpenSwiftDataPostgres
import Testing

/// The PostgreSQL server the tool's tests use, when `OSD_POSTGRES_URL` names one
/// (`Scripts/with-postgres.sh swift test` starts a throwaway server and sets it).
enum ToolPostgres {
    /// The server's URL, as `osd` takes it.
    static let url: String? = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"]
    /// Whether there is a server; the suites that need one are skipped with ``skipMessage`` otherwise.
    static var isAvailable: Bool { url != nil }
    static let skipMessage: Comment = "OSD_POSTGRES_URL is not set: run `Scripts/with-postgres.sh swift test`"

    /// The server's URL, required.
    static func requiredURL() throws -> String {
        try #require(url)
    }

    /// A namespace name no other test uses: `prefix_` and twelve random characters.
    static func freshName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    }

    /// A configuration of a namespace no other test uses.
    static func freshConfiguration(_ prefix: String) throws -> PostgresStoreConfiguration {
        PostgresStoreConfiguration(name: freshName(prefix), url: try #require(URL(string: try requiredURL())))
    }
}
