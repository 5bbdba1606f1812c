import CSQLiteBench
import Foundation
import GRDB
import OpenSwiftData

// W7: an object graph. Insert `trips` trips with 10 activities each in one transaction, then,
// from a fresh start, fetch every trip with its activities prefetched (one query per
// relationship) and visit every activity. Each contender uses its own store file with a
// `voyage` table and an `activity` table whose `voyage` column references it, indexed.

/// W7's shape.
enum GraphWorkload {
    static let activitiesPerTrip = 10

    /// The number of trips for a scale (10,000 at the default 100,000).
    static func trips(scale: Int) -> Int { max(scale / 10, 1) }

    static func activityName(_ trip: Int, _ index: Int) -> String { "Activity \(trip)-\(index)" }
    static func activityCost(_ trip: Int, _ index: Int) -> Double { Double((trip * 10 + index) % 500) / 2 }

    /// The schema of the raw and GRDB contenders.
    static let schema = """
        CREATE TABLE voyage (id INTEGER PRIMARY KEY, name TEXT NOT NULL, destination TEXT NOT NULL, startDate REAL NOT NULL,
            endDate REAL NOT NULL, rating INTEGER NOT NULL, isFavorite INTEGER NOT NULL, budget REAL NOT NULL, notes TEXT);
        CREATE TABLE activity (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cost REAL NOT NULL,
            voyage INTEGER REFERENCES voyage(id) ON DELETE CASCADE);
        CREATE INDEX activity_voyage ON activity(voyage);
        """

    /// Visits every activity of every trip, as an app showing them would, and returns the checksum
    /// every contender computes: activities visited plus their whole-number costs.
    static func visit<Voyage, Activity, Activities: Sequence<Activity>>(
        _ voyages: [Voyage], activities: KeyPath<Voyage, Activities>, cost: KeyPath<Activity, Double>
    ) -> Int {
        var visited = 0
        var total = 0.0
        for voyage in voyages {
            for activity in voyage[keyPath: activities] {
                visited += 1
                total += activity[keyPath: cost]
            }
        }
        return visited + Int(total)
    }
}

// MARK: SQLite C

extension RawSQLite {
    /// A trip and its activities as an app holds them.
    struct VoyageData {
        var id: Int64
        var trip: TripData
        var activities: [(name: String, cost: Double)] = []
    }

    func runGraph(scale: Int) throws -> (seconds: Double, checksum: Int) {
        let path = self.path + "-w7"
        let trips = TripData.generate(count: GraphWorkload.trips(scale: scale))
        let writer = try RawSQLite(path: path, rows: 0)
        try writer.exec(GraphWorkload.schema)
        let insert = try time { try writer.insertGraph(trips) }
        let reader = try RawSQLite(path: path, rows: 0)
        let fetch = try time {
            let voyages = try reader.fetchGraph()
            return GraphWorkload.visit(voyages, activities: \.activities, cost: \.cost)
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }

    private func insertGraph(_ trips: [TripData]) throws -> Int {
        let voyage = try prepare("INSERT INTO voyage (name, destination, startDate, endDate, rating, isFavorite, budget, notes) VALUES (?,?,?,?,?,?,?,?)")
        let activity = try prepare("INSERT INTO activity (name, cost, voyage) VALUES (?,?,?)")
        defer {
            sqlite3_finalize(voyage)
            sqlite3_finalize(activity)
        }
        try exec("BEGIN IMMEDIATE")
        for (number, trip) in trips.enumerated() {
            sqlite3_reset(voyage)
            bindText(voyage, 1, trip.name)
            bindText(voyage, 2, trip.destination)
            sqlite3_bind_double(voyage, 3, trip.startDate)
            sqlite3_bind_double(voyage, 4, trip.endDate)
            sqlite3_bind_int64(voyage, 5, Int64(trip.rating))
            sqlite3_bind_int64(voyage, 6, trip.isFavorite ? 1 : 0)
            sqlite3_bind_double(voyage, 7, trip.budget)
            if let notes = trip.notes { bindText(voyage, 8, notes) } else { sqlite3_bind_null(voyage, 8) }
            guard sqlite3_step(voyage) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            let id = sqlite3_last_insert_rowid(db)
            for index in 0..<GraphWorkload.activitiesPerTrip {
                sqlite3_reset(activity)
                bindText(activity, 1, GraphWorkload.activityName(number, index))
                sqlite3_bind_double(activity, 2, GraphWorkload.activityCost(number, index))
                sqlite3_bind_int64(activity, 3, id)
                guard sqlite3_step(activity) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            }
        }
        try exec("COMMIT")
        return trips.count
    }

    /// Every trip, then every activity in one query, grouped under its trip.
    private func fetchGraph() throws -> [VoyageData] {
        let voyages = try prepare("SELECT \(Self.columns) FROM voyage")
        let activities = try prepare("SELECT name, cost, voyage FROM activity WHERE voyage IN (SELECT id FROM voyage) ORDER BY voyage, id")
        defer {
            sqlite3_finalize(voyages)
            sqlite3_finalize(activities)
        }
        var ids: [Int64] = []
        while sqlite3_step(voyages) == SQLITE_ROW { ids.append(sqlite3_column_int64(voyages, 0)) }
        sqlite3_reset(voyages)
        var result = zip(ids, fetch(voyages)).map { VoyageData(id: $0, trip: $1) }
        var position: [Int64: Int] = [:]
        for (index, voyage) in result.enumerated() { position[voyage.id] = index }
        while sqlite3_step(activities) == SQLITE_ROW {
            guard let index = position[sqlite3_column_int64(activities, 2)] else { continue }
            result[index].activities.append((text(activities, 0), sqlite3_column_double(activities, 1)))
        }
        return result
    }
}

// MARK: GRDB

struct VoyageRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "voyage"
    static let activities = hasMany(ActivityRecord.self, using: ForeignKey(["voyage"]))
    var id: Int64?
    var name: String
    var destination: String
    var startDate: Double
    var endDate: Double
    var rating: Int
    var isFavorite: Bool
    var budget: Double
    var notes: String?

    init(_ trip: TripData) {
        name = trip.name
        destination = trip.destination
        startDate = trip.startDate
        endDate = trip.endDate
        rating = trip.rating
        isFavorite = trip.isFavorite
        budget = trip.budget
        notes = trip.notes
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct ActivityRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "activity"
    var id: Int64?
    var name: String
    var cost: Double
    var voyage: Int64

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A trip with its activities, as GRDB's `including(all:)` decodes it.
struct VoyageWithActivities: Decodable, FetchableRecord {
    var voyage: VoyageRecord
    var activities: [ActivityRecord]
}

extension GRDBContender {
    func runGraph(scale: Int) throws -> (seconds: Double, checksum: Int) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: sharedPragmas) }
        let queue = try DatabaseQueue(path: path + "-w7", configuration: configuration)
        try queue.write { db in try db.execute(sql: GraphWorkload.schema) }
        let trips = TripData.generate(count: GraphWorkload.trips(scale: scale))
        let insert = try time {
            try queue.write { db in
                for (number, trip) in trips.enumerated() {
                    var voyage = VoyageRecord(trip)
                    try voyage.insert(db)
                    for index in 0..<GraphWorkload.activitiesPerTrip {
                        var activity = ActivityRecord(
                            name: GraphWorkload.activityName(number, index), cost: GraphWorkload.activityCost(number, index), voyage: voyage.id!)
                        try activity.insert(db)
                    }
                }
                return trips.count
            }
        }
        let fetch = try time {
            let voyages = try queue.read { db in
                try VoyageRecord.including(all: VoyageRecord.activities.forKey("activities")).asRequest(of: VoyageWithActivities.self).fetchAll(db)
            }
            return GraphWorkload.visit(voyages, activities: \.activities, cost: \.cost)
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }
}

// MARK: OpenSwiftData

@Model
final class Voyage {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var rating: Int
    var isFavorite: Bool
    var budget: Double
    var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \Activity.voyage)
    var activities: [Activity] = []

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

@Model
final class Activity {
    var name: String
    var cost: Double
    var voyage: Voyage?

    init(name: String, cost: Double) {
        self.name = name
        self.cost = cost
    }
}

extension OpenSwiftDataContender {
    func runGraph(scale: Int) throws -> (seconds: Double, checksum: Int) {
        let url = URL(fileURLWithPath: path + "-w7")
        let trips = TripData.generate(count: GraphWorkload.trips(scale: scale))
        let writer = try ModelContainer(for: Voyage.self, Activity.self, configurations: ModelConfiguration(url: url))
        let insert = try time {
            let context = ModelContext(writer)
            for (number, trip) in trips.enumerated() {
                let voyage = Voyage(trip)
                context.insert(voyage)
                for index in 0..<GraphWorkload.activitiesPerTrip {
                    voyage.activities.append(Activity(
                        name: GraphWorkload.activityName(number, index), cost: GraphWorkload.activityCost(number, index)))
                }
            }
            try context.save()
            return trips.count
        }
        // A fresh container: nothing registered, nothing cached.
        let reader = try ModelContainer(for: Voyage.self, Activity.self, configurations: ModelConfiguration(url: url))
        let fetch = try time {
            let context = ModelContext(reader)
            var descriptor = FetchDescriptor<Voyage>()
            descriptor.relationshipKeyPathsForPrefetching = [\.activities]
            let voyages = try context.fetch(descriptor)
            return GraphWorkload.visit(voyages, activities: \.activities, cost: \.cost)
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }
}
