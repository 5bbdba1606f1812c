import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

/// The model of the OpenSwiftData servers, as docs/Postgres.md writes it.
@Model final class Trip {
    #Unique<Trip>([\.code])
    #Index<Trip>([\.rating])
    var code: String
    var name: String
    var rating: Int

    init(code: String, name: String, rating: Int) {
        self.code = code
        self.name = name
        self.rating = rating
    }
}

/// A request's access to the store: one model actor per request on the shared container.
@ModelActor actor TripStore {
    func best(minimum: Int) throws -> [TripDTO] {
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.rating >= minimum }, sortBy: [SortDescriptor(\.rating, order: .reverse)])
        descriptor.fetchLimit = 50
        return try modelContext.fetch(descriptor).map { TripDTO(code: $0.code, name: $0.name, rating: $0.rating) }
    }

    func trip(code: String) throws -> TripDTO? {
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.code == code })
        descriptor.fetchLimit = 1
        return try modelContext.fetch(descriptor).first.map { TripDTO(code: $0.code, name: $0.name, rating: $0.rating) }
    }

    func upsert(_ trip: TripDTO) throws {
        // #Unique makes the insert an upsert of the trip with the same code.
        modelContext.insert(Trip(code: trip.code, name: trip.name, rating: trip.rating))
        try modelContext.save()
    }

    func seed(rows: Int) throws {
        guard try modelContext.fetchCount(FetchDescriptor<Trip>()) == 0 else { return }
        for number in 1...max(rows, 1) {
            let trip = TripSeed.trip(number)
            modelContext.insert(Trip(code: trip.code, name: trip.name, rating: trip.rating))
        }
        try modelContext.save()
    }
}

/// OpenSwiftData on PostgreSQL or SQLite: a `@ModelActor` per request.
struct OpenSwiftDataTrips: TripService {
    let container: ModelContainer

    static func postgres(url: URL, rows: Int) async throws -> OpenSwiftDataTrips {
        // Eight connections, as the other PostgreSQL servers have: its own and seven for reads.
        let configuration = PostgresStoreConfiguration(name: "servers_osd", url: url, maximumReadConnections: 7)
        return try await seeded(ModelContainer(for: Trip.self, configurations: configuration), rows: rows)
    }

    static func sqlite(path: String, rows: Int) async throws -> OpenSwiftDataTrips {
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
        return try await seeded(ModelContainer(for: Trip.self, configurations: configuration), rows: rows)
    }

    private static func seeded(_ container: ModelContainer, rows: Int) async throws -> OpenSwiftDataTrips {
        try await TripStore(modelContainer: container).seed(rows: rows)
        return OpenSwiftDataTrips(container: container)
    }

    func best(minimum: Int) async throws -> [TripDTO] {
        try await TripStore(modelContainer: container).best(minimum: minimum)
    }

    func trip(code: String) async throws -> TripDTO? {
        try await TripStore(modelContainer: container).trip(code: code)
    }

    func upsert(_ trip: TripDTO) async throws {
        try await TripStore(modelContainer: container).upsert(trip)
    }
}
