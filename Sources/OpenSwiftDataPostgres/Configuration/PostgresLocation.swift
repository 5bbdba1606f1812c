import Foundation
import OpenSwiftData

/// Where a PostgreSQL store lives, read from its configuration's URL: server, credentials,
/// database, transport security, and the namespace that holds the configuration's tables.
struct PostgresLocation: Sendable {
    /// Where the server listens.
    enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// A Unix-domain socket: the file `.s.PGSQL.<port>` in the directory the URL names as its
        /// host (`?host=/var/run/postgresql`, as in libpq).
        case socket(path: String)
    }

    let endpoint: Endpoint
    let username: String
    let password: String?
    let database: String
    let transport: PostgresTransport
    /// The PostgreSQL schema (namespace) of the configuration's tables, unquoted.
    let namespace: String
    /// The URL without its password, for messages.
    let displayName: String

    /// How the store's connections name themselves to the server (`pg_stat_activity`): the URL's
    /// `application_name`, or `OpenSwiftData` and the namespace.
    let applicationName: String
    /// How long connecting may take, in seconds: the URL's `connect_timeout` (at least 2, as in
    /// libpq; zero or less waits a day), or 10.
    let connectTimeout: Int64

    init(_ configuration: PostgresStoreConfiguration) throws {
        let url = configuration.url
        func invalid(_ problem: String) -> SwiftDataError {
            SwiftDataError(.invalidStoreURL, reason: "\(problem) in the URL of PostgreSQL configuration \(configuration.name) (\(Self.redacted(url))); write it as postgres://user:password@host:5432/database")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw invalid("Unreadable URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("The scheme is \(components.scheme.map { "\"\($0)\"" } ?? "missing"), not postgres://")
        }
        // As in libpq, the query's `host` and `port` win over the URL's own.
        func parameter(_ name: String) -> String? { components.queryItems?.first { $0.name == name }?.value }
        guard let host = parameter("host") ?? components.host, !host.isEmpty else { throw invalid("The host is missing") }
        guard let username = components.user, !username.isEmpty else { throw invalid("The user name is missing") }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty, !database.contains("/") else { throw invalid("The database name is missing") }
        let port: Int
        if let text = parameter("port") {
            guard let number = Int(text) else { throw invalid("The port \(text) is not a number") }
            port = number
        } else {
            port = components.port ?? 5432
        }
        guard (1...65_535).contains(port) else { throw invalid("The port \(port) is out of range") }
        if let text = parameter("connect_timeout") {
            guard let seconds = Int64(text) else { throw invalid("connect_timeout \(text) is not a whole number of seconds") }
            connectTimeout = seconds <= 0 ? 86_400 : max(2, seconds)
        } else {
            connectTimeout = 10
        }
        if host.hasPrefix("/") {
            // A local socket: no network to protect, and TLS is not used over it (as with libpq).
            endpoint = .socket(path: (host.hasSuffix("/") ? host : host + "/") + ".s.PGSQL.\(port)")
            transport = .plain
        } else {
            endpoint = .tcp(host: host, port: port)
            transport = try PostgresTransport(
                security: configuration.transportSecurity, host: host,
                mode: parameter("sslmode"), roots: parameter("sslrootcert"), invalid: invalid)
        }
        let name = configuration.name
        guard !name.isEmpty, name.utf8.count <= 63, !name.contains("\0") else {
            throw SwiftDataError(.invalidStoreURL, reason: "PostgreSQL configuration name \"\(name)\" cannot name a PostgreSQL schema: use 1 to 63 bytes")
        }
        guard !name.lowercased().hasPrefix("pg_"), name != "information_schema" else {
            throw SwiftDataError(.invalidStoreURL, reason: "PostgreSQL configuration name \"\(name)\" is reserved by PostgreSQL; choose another name")
        }
        self.username = username
        self.password = components.password
        self.database = database
        self.namespace = name
        let givenName = parameter("application_name").flatMap { $0.isEmpty ? nil : $0 }
        self.applicationName = Self.truncated(givenName ?? "OpenSwiftData \(name)", bytes: 63)
        self.displayName = "\(Self.redacted(url)) schema \(name)"
    }

    /// The longest prefix of `text` of at most `bytes` bytes of UTF-8 that ends on a character.
    private static func truncated(_ text: String, bytes: Int) -> String {
        var result = ""
        var count = 0
        for character in text {
            count += character.utf8.count
            guard count <= bytes else { break }
            result.append(character)
        }
        return result
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
