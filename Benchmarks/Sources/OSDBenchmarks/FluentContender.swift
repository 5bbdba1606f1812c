import FluentKit
import FluentPostgresDriver
import Foundation
import PostgresNIO

// Fluent (vapor/fluent-kit with fluent-postgres-driver): models and queries as a Vapor app writes
// them, async, batch creates of a thousand models, eager loading with `with`. Each run has a
// PostgreSQL schema of its own on the server `OSD_POSTGRES_URL` names.

final class FluentTrip: Model, @unchecked Sendable {
    // @unchecked Sendable: Fluent's models are classes of property wrappers, used by one task at a time.
    static let schema = "trip"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Field(key: "name") var name: String
    @Field(key: "destination") var destination: String
    @Field(key: "startdate") var startDate: Double
    @Field(key: "enddate") var endDate: Double
    @Field(key: "rating") var rating: Int
    @Field(key: "isfavorite") var isFavorite: Bool
    @Field(key: "budget") var budget: Double
    @OptionalField(key: "notes") var notes: String?
    @Children(for: \.$trip) var activities: [FluentActivity]

    init() {}

    init(_ data: TripData) {
        name = data.name
        destination = data.destination
        startDate = data.startDate
        endDate = data.endDate
        rating = data.rating
        isFavorite = data.isFavorite
        budget = data.budget
        notes = data.notes
    }
}

final class FluentActivity: Model, @unchecked Sendable {
    // @unchecked Sendable: as `FluentTrip`.
    static let schema = "activity"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Field(key: "name") var name: String
    @Field(key: "cost") var cost: Double
    @OptionalParent(key: "trip") var trip: FluentTrip?

    init() {}

    init(name: String, cost: Double) {
        self.name = name
        self.cost = cost
    }
}

/// Runs async work from the benchmark's synchronous code.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let semaphore = DispatchSemaphore(value: 0)
    let result = LockedResult<T>()
    Task {
        do { result.set(.success(try await body())) } catch { result.set(.failure(error)) }
        semaphore.signal()
    }
    semaphore.wait()
    return try result.get()
}

/// The outcome of `blocking`'s task.
final class LockedResult<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is used only inside `lock`.
    private let lock = NSLock()
    private var value: Result<T, any Error>?
    func set(_ result: Result<T, any Error>) { lock.withLock { value = result } }
    func get() throws -> T {
        guard let value = lock.withLock({ value }) else { throw BenchError("no result") }
        return try value.get()
    }
}

final class FluentContender: Contender {
    let databases: Databases
    let database: any Database
    let schema: String

    init(path: String, rows: Int) throws {
        guard let text = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"], let url = URLComponents(string: text) else {
            throw BenchError("set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run the PostgreSQL contenders")
        }
        schema = "fluent_" + String(UInt64(bitPattern: Int64(path.hashValue)), radix: 36)
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let core = PostgresConnection.Configuration(
            host: url.host ?? "127.0.0.1", port: url.port ?? 5432, username: url.user ?? "postgres",
            password: url.password, database: String(url.path.dropFirst()), tls: .disable)
        databases = Databases(threadPool: NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
        databases.use(.postgres(configuration: SQLPostgresConfiguration(coreConfiguration: core, searchPath: [schema]), maxConnectionsPerEventLoop: 1), as: .psql)
        guard let database = databases.database(.psql, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()) else {
            throw BenchError("Fluent has no PostgreSQL database")
        }
        self.database = database
        let schema = schema
        try blocking {
            guard let sql = database as? any SQLDatabase else { throw BenchError("not an SQL database") }
            try await sql.raw("CREATE SCHEMA \(unsafeRaw: schema)").run()
            try await sql.raw("""
                CREATE TABLE \(unsafeRaw: schema).trip (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, destination TEXT NOT NULL,
                    startdate DOUBLE PRECISION NOT NULL, enddate DOUBLE PRECISION NOT NULL, rating BIGINT NOT NULL,
                    isfavorite BOOLEAN NOT NULL, budget DOUBLE PRECISION NOT NULL, notes TEXT)
                """).run()
        }
        if rows > 0 { _ = try insert(TripData.generate(count: rows)) }
    }

    deinit { databases.shutdown() }

    /// Creates the trips in one transaction, a thousand to a batch create.
    func insert(_ trips: [TripData]) throws -> Int {
        let database = database
        return try blocking {
            try await database.transaction { transaction in
                for start in stride(from: 0, to: trips.count, by: 1_000) {
                    try await trips[start..<min(start + 1_000, trips.count)].map(FluentTrip.init).create(on: transaction)
                }
            }
            return trips.count
        }
    }

    func run(_ workload: Workload, scale: Int) throws -> (seconds: Double, checksum: Int) {
        let database = database
        switch workload {
        case .w1:
            let trips = TripData.generate(count: Workload.insertRows(scale: scale))
            return try time { try insert(trips) }
        case .w2:
            return try time { try blocking { try await FluentTrip.query(on: database).all().count } }
        case .w3, .w3b:
            let repeats = workload == .w3 ? 1_000 : 10_000
            return try time {
                try blocking {
                    var total = 0
                    for _ in 0..<repeats {
                        total += try await FluentTrip.query(on: database).filter(\.$isFavorite == true).filter(\.$rating >= 3)
                            .sort(\.$startDate, .descending).limit(100).all().count
                    }
                    return total
                }
            }
        case .w4, .w4b:
            let repeats = workload == .w4 ? 1_000 : 10_000
            return try time {
                try blocking {
                    var total = 0
                    for _ in 0..<repeats {
                        total += try await FluentTrip.query(on: database).filter(\.$isFavorite == true).filter(\.$rating >= 3).count()
                    }
                    return total
                }
            }
        case .w5:
            let trips = try blocking { try await FluentTrip.query(on: database).all() }
            return try time {
                try blocking {
                    try await database.transaction { transaction in
                        for trip in trips {
                            trip.rating = trip.rating % 5 + 1
                            try await trip.update(on: transaction)
                        }
                    }
                    return trips.count
                }
            }
        case .w6:
            let count = try blocking { try await FluentTrip.query(on: database).filter(\.$rating == 1).count() }
            return try time {
                try blocking { try await FluentTrip.query(on: database).filter(\.$rating == 1).delete() }
                return count
            }
        case .w6k:
            // Fluent's query builder deletes without returning keys; its SQL builder says RETURNING.
            return try time {
                try blocking {
                    guard let sql = database as? any SQLDatabase else { throw BenchError("not an SQL database") }
                    return try await sql.delete(from: FluentTrip.schema).where("rating", .equal, 1).returning("id").all(decodingColumn: "id", as: Int64.self).count
                }
            }
        case .w6c:
            return try runCascadeDelete(scale: scale)
        case .w7:
            return try runGraph(scale: scale)
        case .w8:
            let trips = TripData.generate(count: 2_000)
            return try time {
                try blocking {
                    for trip in trips { try await FluentTrip(trip).create(on: database) }
                    return trips.count
                }
            }
        case .w13:
            let count = try blocking { try await FluentTrip.query(on: database).filter(\.$isFavorite == true).filter(\.$rating >= 3).count() }
            return try time {
                try blocking {
                    for round in 0..<Workload.updateRepeats {
                        try await FluentTrip.query(on: database).filter(\.$isFavorite == true).filter(\.$rating >= 3)
                            .set(\.$budget, to: Double(round + 1) * 10).update()
                    }
                }
                return count * Workload.updateRepeats
            }
        case .w12:
            return try time {
                try blocking {
                    var total = 0.0
                    for _ in 0..<Workload.aggregateRepeats {
                        let query = FluentTrip.query(on: database).filter(\.$isFavorite == true).filter(\.$rating >= 3)
                        let budget = try await query.copy().sum(\.$budget) ?? 0
                        // PostgreSQL sums `bigint`s as `numeric`, which Fluent's `sum` cannot decode as `Int`.
                        let rating = try await query.aggregate(.sum, \.$rating, as: Decimal?.self) ?? 0
                        total += budget + NSDecimalNumber(decimal: rating).doubleValue
                    }
                    return Int(total)
                }
            }
        case .w14:
            return try time {
                try blocking {
                    var total = 0.0
                    for _ in 0..<Workload.aggregateRepeats {
                        let query = FluentTrip.query(on: database).filter(\.$isFavorite == true).filter(\.$rating >= 3)
                        // PostgreSQL averages `bigint`s as `numeric`.
                        let average = try await query.copy().aggregate(.average, \.$rating, as: Decimal?.self) ?? 0
                        let earliest = try await query.copy().min(\.$startDate) ?? 0
                        let latest = try await query.max(\.$startDate) ?? 0
                        total += NSDecimalNumber(decimal: average).doubleValue + earliest + latest
                    }
                    return Int(total)
                }
            }
        case .w9, .w10:
            throw BenchError("\(workload.rawValue) has no Fluent version yet")
        }
    }

    /// The activity table, its foreign key cascading deletes of trips.
    private func createActivities() throws {
        let database = database
        let schema = schema
        try blocking {
            guard let sql = database as? any SQLDatabase else { throw BenchError("not an SQL database") }
            try await sql.raw("CREATE TABLE \(unsafeRaw: schema).activity (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, cost DOUBLE PRECISION NOT NULL, trip BIGINT REFERENCES \(unsafeRaw: schema).trip(id) ON DELETE CASCADE)").run()
            try await sql.raw("CREATE INDEX activity_trip ON \(unsafeRaw: schema).activity(trip)").run()
        }
    }

    /// Creates each trip, then its activities in one batch, in one transaction.
    private func insertGraph(_ trips: [TripData], activitiesPerTrip: Int) throws -> Int {
        let database = database
        return try blocking {
            try await database.transaction { transaction in
                for (number, data) in trips.enumerated() {
                    let trip = FluentTrip(data)
                    try await trip.create(on: transaction)
                    let activities = (0..<activitiesPerTrip).map {
                        FluentActivity(name: GraphWorkload.activityName(number, $0), cost: GraphWorkload.activityCost(number, $0))
                    }
                    try await trip.$activities.create(activities, on: transaction)
                }
            }
            return trips.count
        }
    }

    /// W7: the graph created, then every trip read with its activities eager-loaded and visited.
    private func runGraph(scale: Int) throws -> (seconds: Double, checksum: Int) {
        try createActivities()
        let trips = TripData.generate(count: GraphWorkload.trips(scale: scale))
        let insert = try time { try insertGraph(trips, activitiesPerTrip: GraphWorkload.activitiesPerTrip) }
        let database = database
        let fetch = try time {
            let loaded = try blocking { try await FluentTrip.query(on: database).with(\.$activities).all() }
            return GraphWorkload.visit(loaded, activities: { $0.activities }, cost: { $0.cost })
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }

    /// W6c: W6's delete on trips that have activities, deleted with them by the foreign key.
    private func runCascadeDelete(scale: Int) throws -> (seconds: Double, checksum: Int) {
        try createActivities()
        // Set up (untimed) in batches: trips, their keys read back in order, then their activities.
        let trips = CascadeDeleteWorkload.trips(scale: scale)
        _ = try insert(trips)
        let database = database
        try blocking {
            let ids = try await FluentTrip.query(on: database).sort(\.$id).all(\.$id)
            try await database.transaction { transaction in
                for start in stride(from: 0, to: ids.count, by: 1_000) {
                    let activities = (start..<min(start + 1_000, ids.count)).flatMap { number in
                        (0..<CascadeDeleteWorkload.activitiesPerTrip).map { index in
                            let activity = FluentActivity(name: GraphWorkload.activityName(number, index), cost: GraphWorkload.activityCost(number, index))
                            activity.$trip.id = ids[number]
                            return activity
                        }
                    }
                    try await activities.create(on: transaction)
                }
            }
        }
        let count = try blocking { try await FluentTrip.query(on: database).filter(\.$rating == 1).count() }
        return try time {
            try blocking { try await FluentTrip.query(on: database).filter(\.$rating == 1).delete() }
            return count
        }
    }
}
