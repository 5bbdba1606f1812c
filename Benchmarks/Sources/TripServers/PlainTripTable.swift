import Foundation
import Logging
import PostgresNIO

/// The table the Fluent and postgres-nio servers share the shape of: the columns of `Trip`, a
/// unique code and an index on the rating, as OpenSwiftData's store makes them for the model.
enum PlainTripTable {
    /// The server a `postgres://user:password@host:port/database` URL names (loopback: no TLS).
    struct Server {
        var host: String
        var port: Int
        var user: String
        var password: String?
        var database: String

        init(_ url: URL) throws {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw ServerError("not a URL: \(url)") }
            host = components.host ?? "127.0.0.1"
            port = components.port ?? 5432
            user = components.user ?? "postgres"
            password = components.password
            database = String(components.path.dropFirst())
        }

        var connection: PostgresConnection.Configuration {
            PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        }

        var client: PostgresClient.Configuration {
            PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        }
    }

    /// Makes `schema.trip` anew with `rows` trips (untimed set-up).
    static func create(schema: String, rows: Int, url: URL, logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: Server(url).connection, id: 1, logger: logger)
        do {
            for sql in [
                "DROP SCHEMA IF EXISTS \(schema) CASCADE",
                "CREATE SCHEMA \(schema)",
                "CREATE TABLE \(schema).trip (id BIGSERIAL PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, rating BIGINT NOT NULL)",
                "CREATE INDEX trip_rating ON \(schema).trip (rating)",
                """
                INSERT INTO \(schema).trip (code, name, rating)
                SELECT 'T' || lpad(n::text, 6, '0'), 'Trip ' || n, n % 100 FROM generate_series(1, \(max(rows, 1))) AS n
                """,
                "ANALYZE \(schema).trip",
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

/// A set-up failure, with what went wrong.
struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
