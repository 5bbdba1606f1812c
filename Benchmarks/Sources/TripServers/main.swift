// One of the load harness's servers (Benchmarks/Scripts/servers.sh): the same four routes over
// OpenSwiftData on PostgreSQL or SQLite, Fluent, or hand-written postgres-nio, in a Hummingbird 2
// app of its own.
//
//   TripServers osdpg|osdsqlite|fluent|pgnio --port N [--rows 100000] [--path FILE]
//
// Seeds its data (untimed), then prints `listening on N` once it accepts connections.
import Foundation
import Hummingbird
import Logging
import OpenSwiftData
import PostgresNIO

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let kind = arguments.first ?? ""
let port = Int(option("--port") ?? "8080") ?? 8080
let rows = Int(option("--rows") ?? "100000") ?? 100_000
let logger: Logger = {
    var logger = Logger(label: "TripServers")
    logger.logLevel = .error
    return logger
}()

func postgresURL() throws -> URL {
    guard let text = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"], let url = URL(string: text) else {
        throw ServerError("set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run the PostgreSQL servers")
    }
    return url
}

/// Serves the routes until interrupted, with `beside` (a connection pool's `run`) running too.
func serve(_ service: some TripService, beside: (@Sendable () async -> Void)? = nil) async throws {
    let app = Application(
        router: makeRouter(service), configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: kind),
        onServerRunning: { _ in FileHandle.standardOutput.write(Data("listening on \(port)\n".utf8)) }, logger: logger)
    try await withThrowingTaskGroup(of: Void.self) { group in
        if let beside { group.addTask { await beside() } }
        group.addTask { try await app.runService() }
        try await group.next()
        group.cancelAll()
    }
}

switch kind {
case "osdpg":
    let trips = try await OpenSwiftDataTrips.postgres(url: try postgresURL(), rows: rows)
    try await serve(trips)
    trips.container.close()
case "osdsqlite":
    let path = option("--path") ?? NSTemporaryDirectory() + "trip-server.store"
    try await serve(try await OpenSwiftDataTrips.sqlite(path: path, rows: rows))
case "fluent":
    let trips = try await FluentTrips.make(url: try postgresURL(), rows: rows, logger: logger)
    try await serve(trips)
    await trips.databases.shutdownAsync()
case "pgnio":
    let trips = try await PostgresNIOTrips.make(url: try postgresURL(), rows: rows, logger: logger)
    try await serve(trips) { await trips.client.run() }
default:
    FileHandle.standardError.write(Data("usage: TripServers osdpg|osdsqlite|fluent|pgnio --port N [--rows N] [--path FILE]\n".utf8))
    exit(64)
}
