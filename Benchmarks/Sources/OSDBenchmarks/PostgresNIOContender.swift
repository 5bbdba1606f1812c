import Foundation
import PostgresNIO

/// Hand-written postgres-nio: one transaction, bulk inserts of a thousand rows per statement,
/// prepared statements for repeated single-row writes, rows decoded straight into structs. The
/// physical limit on PostgreSQL, as `RawSQLite` is on SQLite. Each run has a PostgreSQL schema of
/// its own on the server `OSD_POSTGRES_URL` names.
final class PostgresNIOContender: Contender {
    let connection: PostgresConnection
    let logger: Logger
    let schema: String
    let configuration: PostgresConnection.Configuration

    init(path: String, rows: Int) throws {
        guard let text = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"], let url = URLComponents(string: text) else {
            throw BenchError("set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run the PostgreSQL contenders")
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        self.logger = logger
        configuration = PostgresConnection.Configuration(
            host: url.host ?? "127.0.0.1", port: url.port ?? 5432, username: url.user ?? "postgres",
            password: url.password, database: String(url.path.dropFirst()), tls: .disable)
        connection = try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: logger).wait()
        schema = "raw_" + String(UInt64(bitPattern: Int64(path.hashValue)), radix: 36)
        try execute("CREATE SCHEMA \(schema)")
        try execute("SET search_path TO \(schema)")
        try execute("""
            CREATE TABLE trip (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, destination TEXT NOT NULL, startDate DOUBLE PRECISION NOT NULL,
                endDate DOUBLE PRECISION NOT NULL, rating BIGINT NOT NULL, isFavorite BIGINT NOT NULL, budget DOUBLE PRECISION NOT NULL, notes TEXT)
            """)
        if rows > 0 { _ = try insert(TripData.generate(count: rows)) }
    }

    deinit { try? connection.close().wait() }

    /// Runs an aggregate query over the W4 predicate (its one parameter, the least rating, bound
    /// to 3) `Workload.aggregateRepeats` times, and returns the sum of what `read` makes of each
    /// row, as a checksum.
    func repeatAggregate(_ sql: String, _ read: (PostgresRow) throws -> Double) throws -> Int {
        var total = 0.0
        for _ in 0..<Workload.aggregateRepeats {
            var bindings = PostgresBindings()
            bindings.append(Int64(3))
            if let row = try execute(sql, bindings).first { total += try read(row) }
        }
        return Int(total)
    }

    @discardableResult
    func execute(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait().rows
    }

    func prepare(_ sql: String) throws -> PreparedQuery {
        try connection.prepare(query: sql).wait()
    }

    static let insertSQL = "INSERT INTO trip (name, destination, startDate, endDate, rating, isFavorite, budget, notes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    static let columns = "id, name, destination, startDate, endDate, rating, isFavorite, budget, notes"

    static func binds(_ trip: TripData) -> [PostgresData] {
        [PostgresData(string: trip.name), PostgresData(string: trip.destination), PostgresData(double: trip.startDate),
         PostgresData(double: trip.endDate), PostgresData(int64: Int64(trip.rating)), PostgresData(int64: trip.isFavorite ? 1 : 0),
         PostgresData(double: trip.budget), trip.notes.map { PostgresData(string: $0) } ?? PostgresData(type: .text, value: nil)]
    }

    /// Inserts in one transaction, a thousand rows per statement.
    func insert(_ trips: [TripData]) throws -> Int {
        try execute("BEGIN")
        for start in stride(from: 0, to: trips.count, by: 1_000) {
            let chunk = trips[start..<min(start + 1_000, trips.count)]
            var bindings = PostgresBindings(capacity: chunk.count * 8)
            var tuples: [String] = []
            for (row, trip) in chunk.enumerated() {
                tuples.append("(" + (1...8).map { "$\(row * 8 + $0)" }.joined(separator: ", ") + ")")
                Self.append(trip, to: &bindings)
            }
            try execute("INSERT INTO trip (name, destination, startDate, endDate, rating, isFavorite, budget, notes) VALUES \(tuples.joined(separator: ", "))", bindings)
        }
        try execute("COMMIT")
        return trips.count
    }

    /// Appends a trip's eight values, in the order of `insertSQL`'s columns.
    static func append(_ trip: TripData, to bindings: inout PostgresBindings) {
        bindings.append(trip.name)
        bindings.append(trip.destination)
        bindings.append(trip.startDate)
        bindings.append(trip.endDate)
        bindings.append(Int64(trip.rating))
        bindings.append(Int64(trip.isFavorite ? 1 : 0))
        bindings.append(trip.budget)
        bindings.append(trip.notes)
    }

    /// Decodes rows of `columns` into trips.
    static func trips(_ rows: [PostgresRow]) throws -> [TripData] {
        try rows.map { row in
            let (_, name, destination, start, end, rating, favorite, budget, notes) = try row.decode(
                (Int64, String, String, Double, Double, Int64, Int64, Double, String?).self)
            return TripData(name: name, destination: destination, startDate: start, endDate: end, rating: Int(rating),
                            isFavorite: favorite != 0, budget: budget, notes: notes)
        }
    }

    func run(_ workload: Workload, scale: Int) throws -> (seconds: Double, checksum: Int) {
        switch workload {
        case .w1:
            let trips = TripData.generate(count: Workload.insertRows(scale: scale))
            return try time { try insert(trips) }
        case .w2:
            return try time { try Self.trips(try execute("SELECT \(Self.columns) FROM trip")).count }
        case .w3, .w3b:
            let repeats = workload == .w3 ? 1_000 : 10_000
            return try time {
                var total = 0
                for _ in 0..<repeats {
                    var bindings = PostgresBindings()
                    bindings.append(Int64(3))
                    bindings.append(Int64(100))
                    total += try Self.trips(execute("SELECT \(Self.columns) FROM trip WHERE isFavorite <> 0 AND rating >= $1 ORDER BY startDate DESC LIMIT $2", bindings)).count
                }
                return total
            }
        case .w4, .w4b:
            let repeats = workload == .w4 ? 1_000 : 10_000
            return try time {
                var total = 0
                for _ in 0..<repeats {
                    var bindings = PostgresBindings()
                    bindings.append(Int64(3))
                    total += Int(try execute("SELECT count(*) FROM trip WHERE isFavorite <> 0 AND rating >= $1", bindings).first?.decode(Int64.self) ?? 0)
                }
                return total
            }
        case .w5:
            let rows = try execute("SELECT \(Self.columns) FROM trip")
            let ids = try rows.map { try $0.decode((Int64, String).self).0 }
            let trips = try Self.trips(rows)
            return try time {
                let update = try prepare("UPDATE trip SET rating = $1 WHERE id = $2")
                try execute("BEGIN")
                for (id, trip) in zip(ids, trips) {
                    _ = try update.execute([PostgresData(int64: Int64(trip.rating % 5 + 1)), PostgresData(int64: id)]).wait()
                }
                try execute("COMMIT")
                return trips.count
            }
        case .w6, .w6k:
            return try time { try execute("DELETE FROM trip WHERE rating = 1 RETURNING id").count }
        case .w8:
            let trips = TripData.generate(count: 2_000)
            return try time {
                let statement = try prepare(Self.insertSQL)
                for trip in trips {
                    try execute("BEGIN")
                    _ = try statement.execute(Self.binds(trip)).wait()
                    try execute("COMMIT")
                }
                return trips.count
            }
        case .w6c:
            return try runCascadeDelete(scale: scale)
        case .w7:
            return try runGraph(scale: scale)
        case .w9:
            return try runReadsWhileWriting()
        case .w13:
            let count = try execute("SELECT count(*) FROM trip WHERE isFavorite <> 0 AND rating >= 3").first?.decode(Int64.self) ?? 0
            return try time {
                for round in 0..<Workload.updateRepeats {
                    var bindings = PostgresBindings()
                    bindings.append(Double(round + 1) * 10)
                    bindings.append(Int64(3))
                    try execute("UPDATE trip SET budget = $1 WHERE isFavorite <> 0 AND rating >= $2", bindings)
                }
                return Int(count) * Workload.updateRepeats
            }
        case .w12:
            return try time {
                try repeatAggregate("SELECT sum(budget), sum(rating)::int8 FROM trip WHERE isFavorite <> 0 AND rating >= $1") { row in
                    let (budget, rating) = try row.decode((Double?, Int64?).self)
                    return (budget ?? 0) + Double(rating ?? 0)
                }
            }
        case .w14:
            return try time {
                try repeatAggregate("SELECT avg(rating)::float8, min(startDate), max(startDate) FROM trip WHERE isFavorite <> 0 AND rating >= $1") { row in
                    let (average, earliest, latest) = try row.decode((Double?, Double?, Double?).self)
                    return (average ?? 0) + (earliest ?? 0) + (latest ?? 0)
                }
            }
        case .w10:
            throw BenchError("\(workload.rawValue) has no postgres-nio version yet")
        }
    }
}
