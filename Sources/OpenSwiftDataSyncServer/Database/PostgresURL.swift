import Foundation
import PostgresNIO

extension PostgresClient.Configuration {
    /// A client configuration from a `postgres://user:password@host:port/database` URL; `sslmode`
    /// `require` (or `verify-full`) asks for TLS, `prefer` uses it when the server offers it, and
    /// `disable` (the default on a loopback host) never does.
    package static func syncServer(url text: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "postgres" || scheme == "postgresql"
        else {
            throw SyncServerError("The PostgreSQL URL \(redacted(text)) is not a postgres:// URL; write it as postgres://user:password@host:5432/database")
        }
        func parameter(_ name: String) -> String? { components.queryItems?.last { $0.name == name }?.value }
        guard let host = parameter("host") ?? components.host, !host.isEmpty else {
            throw SyncServerError("The PostgreSQL URL \(redacted(text)) names no host")
        }
        let user = parameter("user") ?? components.user ?? "postgres"
        let password = parameter("password") ?? components.password
        let database = parameter("dbname") ?? String(components.path.drop(while: { $0 == "/" }))
        let port = Int(parameter("port") ?? "") ?? components.port ?? 5432
        if host.hasPrefix("/") {
            return PostgresClient.Configuration(unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database.isEmpty ? nil : database)
        }
        let loopback = host == "localhost" || host == "127.0.0.1" || host == "::1"
        let tls: PostgresClient.Configuration.TLS
        switch parameter("sslmode") ?? (loopback ? "disable" : "prefer") {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case let mode: throw SyncServerError("The PostgreSQL URL's sslmode \(mode) is not one of disable, prefer, require, verify-full")
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database.isEmpty ? nil : database, tls: tls)
    }

    /// The URL without its password, for messages.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }
}

/// A failure to start or run the sync server, in words.
public struct SyncServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String

    /// An error that says `description`.
    public init(_ description: String) { self.description = description }
}
