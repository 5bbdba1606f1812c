import Foundation
import Logging
import PostgresNIO

/// Hand-written postgres-nio: a connection pool and prepared statements, rows decoded straight
/// into the response. The limit on PostgreSQL.
struct PostgresNIOTrips: TripService {
    let client: PostgresClient
    let logger: Logger

    static let schema = "servers_nio"

    struct Best: PostgresPreparedStatement {
        static let sql = "SELECT code, name, rating FROM \(schema).trip WHERE rating >= $1 ORDER BY rating DESC LIMIT 50"
        typealias Row = (String, String, Int64)
        var minimum: Int64
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(minimum)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    struct ByCode: PostgresPreparedStatement {
        static let sql = "SELECT code, name, rating FROM \(schema).trip WHERE code = $1"
        typealias Row = (String, String, Int64)
        var code: String
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(code)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    struct Upsert: PostgresPreparedStatement {
        static let sql = """
            INSERT INTO \(schema).trip (code, name, rating) VALUES ($1, $2, $3)
            ON CONFLICT (code) DO UPDATE SET name = excluded.name, rating = excluded.rating
            """
        typealias Row = ()
        var trip: TripDTO
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(trip.code)
            bindings.append(trip.name)
            bindings.append(Int64(trip.rating))
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }

    /// The pool (eight connections, as every PostgreSQL server here has); run `client.run()` beside it.
    static func make(url: URL, rows: Int, logger: Logger) async throws -> PostgresNIOTrips {
        try await PlainTripTable.create(schema: schema, rows: rows, url: url, logger: logger)
        var configuration = try PlainTripTable.Server(url).client
        configuration.options.maximumConnections = 8
        return PostgresNIOTrips(client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger)
    }

    func best(minimum: Int) async throws -> [TripDTO] {
        var trips: [TripDTO] = []
        for try await (code, name, rating) in try await client.execute(Best(minimum: Int64(minimum)), logger: logger) {
            trips.append(TripDTO(code: code, name: name, rating: Int(rating)))
        }
        return trips
    }

    func trip(code: String) async throws -> TripDTO? {
        var found: TripDTO?
        for try await (code, name, rating) in try await client.execute(ByCode(code: code), logger: logger) {
            found = TripDTO(code: code, name: name, rating: Int(rating))
        }
        return found
    }

    func upsert(_ trip: TripDTO) async throws {
        for try await _ in try await client.execute(Upsert(trip: trip), logger: logger) {}
    }
}
