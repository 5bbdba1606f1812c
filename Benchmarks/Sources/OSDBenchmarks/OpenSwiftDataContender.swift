import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

@Model
final class Trip {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var rating: Int
    var isFavorite: Bool
    var budget: Double
    var notes: String?

    init(_ trip: TripData) {
        name = trip.name
        destination = trip.destination
        startDate = Date(timeIntervalSinceReferenceDate: trip.startDate)
        endDate = Date(timeIntervalSinceReferenceDate: trip.endDate)
        rating = trip.rating
        isFavorite = trip.isFavorite
        budget = trip.budget
        notes = trip.notes
    }
}

/// The next version of the trip model, for W10: `destination` renamed, `visits` added.
enum TripV2 {
    @Model
    final class Trip {
        var name: String
        @Attribute(originalName: "destination") var place: String
        var startDate: Date
        var endDate: Date
        var rating: Int
        var isFavorite: Bool
        var budget: Double
        var notes: String?
        var visits: Int = 0

        init(name: String, place: String, startDate: Date, endDate: Date, rating: Int, isFavorite: Bool, budget: Double) {
            self.name = name
            self.place = place
            self.startDate = startDate
            self.endDate = endDate
            self.rating = rating
            self.isFavorite = isFavorite
            self.budget = budget
        }
    }
}

/// Where the OpenSwiftData contender keeps its store.
enum BenchStore {
    /// An SQLite file (the default).
    case sqlite
    /// A PostgreSQL schema of its own on the server `OSD_POSTGRES_URL` names.
    case postgres(URL)

    /// The server for the PostgreSQL contenders.
    static func postgresServer() throws -> URL {
        guard let url = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"].flatMap(URL.init(string:)) else {
            throw BenchError("set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run the PostgreSQL contenders")
        }
        return url
    }
}

/// OpenSwiftData with `@Model` classes and a `ModelContext`.
final class OpenSwiftDataContender: Contender {
    let container: ModelContainer
    let path: String
    let store: BenchStore

    convenience init(path: String, rows: Int) throws {
        try self.init(path: path, rows: rows, store: .sqlite)
    }

    init(path: String, rows: Int, store: BenchStore) throws {
        self.path = path
        self.store = store
        container = try ModelContainer(for: Schema([Trip.self]), configurations: [Self.configuration(path, store)])
        // The untimed seed goes in chunks, so that the workload's peak memory is its own.
        let seed = TripData.generate(count: rows)
        for start in stride(from: 0, to: rows, by: 10_000) { _ = try insert(Array(seed[start..<min(start + 10_000, rows)])) }
    }

    /// The configuration of the store at `path` (a file, or a PostgreSQL schema named after it).
    static func configuration(_ path: String, _ store: BenchStore) -> any DataStoreConfiguration {
        switch store {
        case .sqlite: ModelConfiguration(url: URL(fileURLWithPath: path))
        case .postgres(let server): PostgresStoreConfiguration(name: "osd_" + String(UInt64(bitPattern: Int64(path.hashValue)), radix: 36), url: server)
        }
    }

    /// The configuration of a companion store of the workload's (`suffix` names it).
    func configuration(_ suffix: String) -> any DataStoreConfiguration {
        Self.configuration(path + suffix, store)
    }

    func insert(_ trips: [TripData]) throws -> Int {
        let context = ModelContext(container)
        for trip in trips { context.insert(Trip(trip)) }
        try context.save()
        return trips.count
    }

    static func query() -> FetchDescriptor<Trip> {
        let minimum = 3
        return FetchDescriptor(predicate: #Predicate { $0.isFavorite && $0.rating >= minimum })
    }

    func run(_ workload: Workload, scale: Int) throws -> (seconds: Double, checksum: Int) {
        switch workload {
        case .w1:
            let trips = TripData.generate(count: Workload.insertRows(scale: scale))
            return try time { try insert(trips) }
        case .w2:
            return try time { try ModelContext(container).fetch(FetchDescriptor<Trip>()).count }
        case .w3, .w3b:
            let repeats = workload == .w3 ? 1_000 : 10_000
            return try time {
                let context = ModelContext(container)
                var descriptor = Self.query()
                descriptor.sortBy = [SortDescriptor(\.startDate, order: .reverse)]
                descriptor.fetchLimit = 100
                var total = 0
                for _ in 0..<repeats { total += try context.fetch(descriptor).count }
                return total
            }
        case .w4, .w4b:
            let repeats = workload == .w4 ? 1_000 : 10_000
            return try time {
                let context = ModelContext(container)
                let descriptor = Self.query()
                var total = 0
                for _ in 0..<repeats { total += try context.fetchCount(descriptor) }
                return total
            }
        case .w5:
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<Trip>())
            return try time {
                for trip in trips { trip.rating = trip.rating % 5 + 1 }
                try context.save()
                return trips.count
            }
        case .w6, .w6k:
            let count = try ModelContext(container).fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.rating == 1 }))
            return try time {
                let context = ModelContext(container)
                try context.delete(model: Trip.self, where: #Predicate { $0.rating == 1 })
                try context.save()
                return count
            }
        case .w6c:
            return try runCascadeDelete(scale: scale)
        case .w7:
            return try runGraph(scale: scale)
        case .w8:
            let trips = TripData.generate(count: 2_000)
            return try time {
                let context = ModelContext(container)
                for trip in trips {
                    context.insert(Trip(trip))
                    try context.save()
                }
                return trips.count
            }
        case .w13:
            return try time {
                let context = ModelContext(container)
                let minimum = 3
                var updated = 0
                for round in 0..<Workload.updateRepeats {
                    updated += try context.update(model: Trip.self, where: #Predicate { $0.isFavorite && $0.rating >= minimum },
                                                  set: \.budget, to: Double(round + 1) * 10)
                }
                return updated
            }
        case .w12:
            return try time {
                let context = ModelContext(container)
                let descriptor = Self.query()
                var total = 0.0
                for _ in 0..<Workload.aggregateRepeats {
                    let (budgets, ratings) = try context.aggregates(.sum(\Trip.budget), .sum(\.rating), in: descriptor)
                    total += budgets + Double(ratings)
                }
                return Int(total)
            }
        case .w14:
            return try time {
                let context = ModelContext(container)
                let descriptor = Self.query()
                var total = 0.0
                for _ in 0..<Workload.aggregateRepeats {
                    let (average, earliest, latest) = try context.aggregates(
                        .average(\Trip.rating), .minimum(\.startDate), .maximum(\.startDate), in: descriptor)
                    total += (average ?? 0) + (earliest?.timeIntervalSinceReferenceDate ?? 0) + (latest?.timeIntervalSinceReferenceDate ?? 0)
                }
                return Int(total)
            }
        case .w10:
            // Opening the store with the new model migrates it (a lightweight migration).
            return try time {
                let migrated = try ModelContainer(for: Schema([TripV2.Trip.self]), configurations: [configuration("")])
                return try ModelContext(migrated).fetchCount(FetchDescriptor<TripV2.Trip>())
            }
        case .w9:
            // One context per thread; the container is shared, as across actors.
            let container = self.container
            return try time {
                try ReadsWhileWriting.run(
                    reader: {
                        let context = ModelContext(container)
                        var descriptor = Self.query()
                        descriptor.sortBy = [SortDescriptor(\.startDate, order: .reverse)]
                        descriptor.fetchLimit = 100
                        for _ in 0..<ReadsWhileWriting.queriesPerReader { _ = try context.fetch(descriptor) }
                        return ReadsWhileWriting.queriesPerReader
                    },
                    writer: {
                        let context = ModelContext(container)
                        for trip in TripData.generate(count: ReadsWhileWriting.writes) {
                            context.insert(Trip(trip))
                            try context.save()
                        }
                        return ReadsWhileWriting.writes
                    })
            }
        }
    }
}
