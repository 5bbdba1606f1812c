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
    /// How long, in seconds, replacing a lost connection waits for a server that is away
    /// (restarting, failing over): the configuration's
    /// ``PostgresStoreConfiguration/reconnectionTimeout``, zero or more.
    let reconnectionTimeout: TimeInterval
    /// How long, in seconds, a save whose commit reply was lost waits to learn whether the server
    /// kept it: the configuration's ``PostgresStoreConfiguration/commitOutcomeTimeout``, zero or
    /// more.
    let commitOutcomeTimeout: TimeInterval
    /// The server settings the URL's `options` gives (`-c name=value …`), sent as libpq sends them.
    let options: String?
    /// The TCP keepalive probes of the store's connections, `nil` when the URL turns them off
    /// (and for a Unix-domain socket, which needs none).
    let keepalive: PostgresKeepalive?

    /// The query parameters the URL may have, with libpq's meanings. libpq refuses a parameter it
    /// does not know; this refuses one it does not honour too, so that a misspelt or unsupported
    /// setting (a client certificate, `channel_binding`) fails rather than being silently dropped.
    static let parameters: Set<String> = [
        "host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "application_name",
        "fallback_application_name", "connect_timeout", "options", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count",
    ]

    init(_ configuration: PostgresStoreConfiguration) throws {
        let url = configuration.url
        func invalid(_ problem: String) -> SwiftDataError {
            SwiftDataError(.invalidStoreURL, reason: "\(problem) in the URL of PostgreSQL configuration \(configuration.name) (\(Self.redacted(url))); write it as postgres://user:password@host:5432/database")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw invalid("Unreadable URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("The scheme is \(components.scheme.map { "\"\($0)\"" } ?? "missing"), not postgres://")
        }
        if let unknown = components.queryItems?.first(where: { !Self.parameters.contains($0.name) }) {
            throw invalid("The query parameter \(unknown.name) is not one OpenSwiftData reads (it reads \(Self.parameters.sorted().joined(separator: ", ")))")
        }
        // As in libpq, the query's parameters win over the URL's own parts.
        func parameter(_ name: String) -> String? { components.queryItems?.last { $0.name == name }?.value }
        guard let host = parameter("host") ?? components.host, !host.isEmpty else { throw invalid("The host is missing") }
        guard let username = parameter("user") ?? components.user, !username.isEmpty else { throw invalid("The user name is missing") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = parameter("dbname") ?? path
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
            _ = try PostgresKeepalive.read(parameter, invalid: invalid)
            keepalive = nil
        } else {
            keepalive = try PostgresKeepalive.read(parameter, invalid: invalid)
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
        self.reconnectionTimeout = configuration.reconnectionTimeout > 0 ? configuration.reconnectionTimeout : 0
        self.commitOutcomeTimeout = configuration.commitOutcomeTimeout > 0 ? configuration.commitOutcomeTimeout : 0
        self.username = username
        self.password = parameter("password") ?? components.password
        self.database = database
        self.namespace = name
        self.options = parameter("options").flatMap { $0.isEmpty ? nil : $0 }
        let givenName = [parameter("application_name"), parameter("fallback_application_name")].lazy.compactMap { $0 }.first { !$0.isEmpty }
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

    /// The URL with its password replaced (the user part's, and the query's), for messages.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "a URL that cannot be read" }
        let queryHasPassword = components.queryItems?.contains { $0.name == "password" } == true
        guard components.password != nil || queryHasPassword else { return url.absoluteString }
        if components.password != nil { components.password = "***" }
        if queryHasPassword {
            components.queryItems = components.queryItems?.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        return components.string ?? "a URL with a password"
    }
}
