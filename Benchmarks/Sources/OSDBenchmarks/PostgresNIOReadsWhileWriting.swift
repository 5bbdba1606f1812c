import Foundation
import PostgresNIO

extension PostgresNIOContender {
    /// W9 by hand: a connection per thread (opened untimed), the readers running the W3b query
    /// as W3 does, the writer one transaction per row, as in W8.
    func runReadsWhileWriting() throws -> (seconds: Double, checksum: Int) {
        var connections: [PostgresConnection] = []
        defer { for connection in connections { try? connection.close().wait() } }
        for id in 0...ReadsWhileWriting.readers {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 10 + id, logger: logger).wait()
            connections.append(connection)
            _ = try connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(schema)"), logger: logger).wait()
        }
        let handout = ConnectionHandout(connections)
        let logger = logger
        return try time {
            try ReadsWhileWriting.run(
                reader: {
                    let connection = handout.next()
                    for _ in 0..<ReadsWhileWriting.queriesPerReader {
                        var bindings = PostgresBindings()
                        bindings.append(Int64(3))
                        bindings.append(Int64(100))
                        let sql = "SELECT \(Self.columns) FROM trip WHERE isFavorite <> 0 AND rating >= $1 ORDER BY startDate DESC LIMIT $2"
                        _ = try Self.trips(connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait().rows)
                    }
                    return ReadsWhileWriting.queriesPerReader
                },
                writer: {
                    let connection = handout.next()
                    let insert = try connection.prepare(query: Self.insertSQL).wait()
                    for trip in TripData.generate(count: ReadsWhileWriting.writes) {
                        _ = try connection.query("BEGIN", logger: logger).wait()
                        _ = try insert.execute(Self.binds(trip)).wait()
                        _ = try connection.query("COMMIT", logger: logger).wait()
                    }
                    return ReadsWhileWriting.writes
                })
        }
    }
}

/// Hands each of W9's threads a connection of its own.
final class ConnectionHandout: @unchecked Sendable {
    // @unchecked Sendable: `handed` is used only inside `lock`; connections are Sendable.
    private let lock = NSLock()
    private let connections: [PostgresConnection]
    private var handed = 0

    init(_ connections: [PostgresConnection]) { self.connections = connections }

    func next() -> PostgresConnection {
        lock.withLock {
            defer { handed += 1 }
            return connections[handed % connections.count]
        }
    }
}
