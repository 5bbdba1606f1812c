import Logging
import OpenSwiftDataSyncServer
import PostgresNIO

/// Runs `body` with a client of the check run's PostgreSQL database, running while it works.
func withCheckDatabase<T: Sendable>(postgresURL: String, _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T) async throws -> T {
    var logger = Logger(label: "sync-check")
    logger.logLevel = .critical
    let client = PostgresClient(configuration: try .syncServer(url: postgresURL), backgroundLogger: logger)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            await client.run()
            return nil
        }
        defer { group.cancelAll() }
        return try await body(client, logger)
    }
}
