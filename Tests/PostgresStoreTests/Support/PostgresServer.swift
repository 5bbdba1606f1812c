import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import PostgresNIO
import Testing

/// The server `OSD_POSTGRES_URL` names (`Scripts/with-postgres.sh swift test` starts one).
enum PostgresServer {
    static let url: URL? = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"].flatMap(URL.init(string:))
    static let isAvailable = url != nil
    static let skipMessage: Comment = "OSD_POSTGRES_URL is not set: run `Scripts/with-postgres.sh swift test`"
    /// A role of the same server that must sign in with its password, with that password in the
    /// URL (`Scripts/with-postgres.sh` creates it).
    static let passwordURL: URL? = ProcessInfo.processInfo.environment["OSD_POSTGRES_PASSWORD_URL"].flatMap(URL.init(string:))
    static let passwordSkipMessage: Comment = "OSD_POSTGRES_PASSWORD_URL is not set: run `Scripts/with-postgres.sh swift test`"
    /// The same server through its Unix-domain socket (`?host=DIRECTORY&port=PORT`).
    static let socketURL: URL? = ProcessInfo.processInfo.environment["OSD_POSTGRES_SOCKET_URL"].flatMap(URL.init(string:))
    static let socketSkipMessage: Comment = "OSD_POSTGRES_SOCKET_URL is not set: run `Scripts/with-postgres.sh swift test`"

    /// The certificate of the authority that signed the server's TLS certificate, when the server
    /// speaks TLS (`Scripts/with-postgres.sh` sets it up when openssl is installed).
    static let certificateAuthority: String? = ProcessInfo.processInfo.environment["OSD_POSTGRES_CA"]
    static let tlsSkipMessage: Comment = "OSD_POSTGRES_CA is not set: run `Scripts/with-postgres.sh swift test` with openssl installed"

    /// A configuration of a fresh namespace on the server, with `query` added to its URL and the
    /// host replaced when `host` is given.
    static func freshConfiguration(query: String, host: String? = nil, transportSecurity: PostgresStoreConfiguration.TransportSecurity = .automatic) throws -> PostgresStoreConfiguration {
        let fresh = try freshConfiguration("tls")
        var components = try #require(URLComponents(url: fresh.url, resolvingAgainstBaseURL: false))
        components.percentEncodedQuery = query
        if let host { components.host = host }
        return PostgresStoreConfiguration(name: fresh.name, url: try #require(components.url), transportSecurity: transportSecurity)
    }

    /// Whether the connections of the store of `configuration` that are open now use TLS
    /// (`pg_stat_ssl`), or `nil` when it has none open.
    static func usesTLS(_ configuration: PostgresStoreConfiguration) throws -> Bool? {
        let rows = try sql("""
            SELECT coalesce(bool_and(s.ssl)::text, 'none') FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
            WHERE a.application_name = 'OpenSwiftData \(configuration.name)'
            """)
        return rows.first.flatMap { $0 == "none" ? nil : $0 == "true" }
    }

    /// A configuration of a namespace no other test uses.
    static func freshConfiguration(_ prefix: String = "osd", allowsSave: Bool = true) throws -> PostgresStoreConfiguration {
        let url = try #require(url)
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        return PostgresStoreConfiguration(name: "\(prefix)_\(suffix)", url: url, allowsSave: allowsSave)
    }

    static let logger: Logger = {
        var logger = Logger(label: "tests")
        logger.logLevel = .critical
        return logger
    }()

    /// A connection of the test's own, outside any store; close it when done.
    static func connect() throws -> PostgresConnection {
        let url = try #require(url)
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        return try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 9, logger: logger).wait()
    }

    /// Runs SQL on a connection of its own and returns the first column of each row as text.
    @discardableResult
    static func sql(_ text: String) throws -> [String] {
        let connection = try connect()
        defer { try? connection.close().wait() }
        return try sql(text, on: connection)
    }

    /// Runs SQL on `connection` and returns the first column of each row as text.
    @discardableResult
    static func sql(_ text: String, on connection: PostgresConnection) throws -> [String] {
        let rows = try connection.query(PostgresQuery(unsafeSQL: text), logger: logger).wait().rows
        return rows.map { row in
            guard let bytes = row.makeRandomAccess()[0].bytes else { return "NULL" }
            return bytes.getString(at: bytes.readerIndex, length: bytes.readableBytes) ?? ""
        }
    }
}
