import FluentKit
import FluentPostgresDriver
import Foundation
import Logging
import NIOCore
import NIOPosix

/// The trip as a Vapor app declares it for Fluent.
final class FluentTrip: Model, @unchecked Sendable {
    // @unchecked Sendable: Fluent's models are classes of property wrappers, used by one task at a time.
    static let schema = "trip"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Field(key: "code") var code: String
    @Field(key: "name") var name: String
    @Field(key: "rating") var rating: Int

    init() {}

    init(_ trip: TripDTO) {
        code = trip.code
        name = trip.name
        rating = trip.rating
    }

    var dto: TripDTO { TripDTO(code: code, name: name, rating: rating) }
}

/// Fluent as a Vapor app uses it: queries built with its query builder, an upsert as a lookup
/// then an update or a create.
struct FluentTrips: TripService {
    let databases: Databases
    let logger: Logger

    static let schema = "servers_fluent"

    /// Four connections per event loop (eight on two cores, as every PostgreSQL server here has).
    static func make(url: URL, rows: Int, logger: Logger) async throws -> FluentTrips {
        try await PlainTripTable.create(schema: schema, rows: rows, url: url, logger: logger)
        let databases = Databases(threadPool: NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
        let configuration = SQLPostgresConfiguration(coreConfiguration: try PlainTripTable.Server(url).connection, searchPath: [schema])
        databases.use(.postgres(configuration: configuration, maxConnectionsPerEventLoop: 4), as: .psql)
        return FluentTrips(databases: databases, logger: logger)
    }

    private var database: any Database {
        get throws {
            guard let database = databases.database(.psql, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()) else {
                throw ServerError("Fluent has no PostgreSQL database")
            }
            return database
        }
    }

    func best(minimum: Int) async throws -> [TripDTO] {
        try await FluentTrip.query(on: database).filter(\.$rating >= minimum).sort(\.$rating, .descending).limit(50).all().map(\.dto)
    }

    func trip(code: String) async throws -> TripDTO? {
        try await FluentTrip.query(on: database).filter(\.$code == code).first()?.dto
    }

    func upsert(_ trip: TripDTO) async throws {
        let database = try database
        if let existing = try await FluentTrip.query(on: database).filter(\.$code == trip.code).first() {
            existing.name = trip.name
            existing.rating = trip.rating
            try await existing.update(on: database)
        } else {
            try await FluentTrip(trip).create(on: database)
        }
    }
}
