import Foundation
import PostgresNIO

/// Brings a PostgreSQL database to the state autovacuum leaves it in after a load, before a
/// measurement: `VACUUM ANALYZE` marks the loaded pages all-visible and gathers statistics.
/// Without it, whether autovacuum has reached a contender's new table before or during its timed
/// part decides how fast its scans are (W4 moved by ±20% between runs of one build); with it,
/// every PostgreSQL contender is measured on a settled table. Untimed.
enum PostgresSettling {
    static func settle() throws {
        let url = try BenchStore.postgresServer()
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw BenchError("OSD_POSTGRES_URL is not a URL: \(url)")
        }
        var logger = Logger(label: "bench.settle")
        logger.logLevel = .critical
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        let connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 2, logger: logger).wait()
        defer { try? connection.close().wait() }
        _ = try connection.query("VACUUM ANALYZE", logger: logger).wait()
    }
}
