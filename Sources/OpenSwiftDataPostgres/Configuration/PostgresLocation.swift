import Foundation
import OpenSwiftData

/// Where a PostgreSQL store lives, read from its configuration's URL: server, credentials,
/// database, transport security, and the namespace that holds the configuration's tables.
struct PostgresLocation: Sendable {
    let host: String
    let port: Int
    let username: String
    let password: String?
    let database: String
    let transport: PostgresTransport
    /// The PostgreSQL schema (namespace) of the configuration's tables, unquoted.
    let namespace: String
    /// The URL without its password, for messages.
    let displayName: String

    /// How the store's connections name themselves to the server (`pg_stat_activity`).
    var applicationName: String { String("OpenSwiftData \(namespace)".utf8.prefix(63)) ?? "OpenSwiftData" }

    init(_ configuration: PostgresStoreConfiguration) throws {
        let url = configuration.url
        func invalid(_ problem: String) -> SwiftDataError {
            SwiftDataError(.invalidStoreURL, reason: "\(problem) in the URL of PostgreSQL configuration \(configuration.name) (\(Self.redacted(url))); write it as postgres://user:password@host:5432/database")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw invalid("Unreadable URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("The scheme is \(components.scheme.map { "\"\($0)\"" } ?? "missing"), not postgres://")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("The host is missing") }
        guard let username = components.user, !username.isEmpty else { throw invalid("The user name is missing") }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty, !database.contains("/") else { throw invalid("The database name is missing") }
        if let port = components.port, !(1...65_535).contains(port) { throw invalid("The port \(port) is out of range") }
        transport = try PostgresTransport(security: configuration.transportSecurity, components: components, invalid: invalid)
        let name = configuration.name
        guard !name.isEmpty, name.utf8.count <= 63, !name.contains("\0") else {
            throw SwiftDataError(.invalidStoreURL, reason: "PostgreSQL configuration name \"\(name)\" cannot name a PostgreSQL schema: use 1 to 63 bytes")
        }
        guard !name.lowercased().hasPrefix("pg_"), name != "information_schema" else {
            throw SwiftDataError(.invalidStoreURL, reason: "PostgreSQL configuration name \"\(name)\" is reserved by PostgreSQL; choose another name")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username
        self.password = components.password
        self.database = database
        self.namespace = name
        self.displayName = "\(Self.redacted(url)) schema \(name)"
    }

    /// The URL with its password replaced, for messages.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return url.absoluteString
        }
        components.password = "***"
        return components.string ?? url.absoluteString
    }
}
