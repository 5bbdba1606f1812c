import CSQLiteBench
import Foundation
import GRDB
import OpenSwiftData

// W7: an object graph. Insert `trips` trips with 10 activities each in one transaction, then,
// from a fresh start, fetch every trip with its activities prefetched (one query per
// relationship) and visit every activity. Each contender uses its own store file; the C and GRDB
// contenders add to the trip table of the other workloads an `activity` table whose `trip` column
// references it, indexed.

/// W7's shape.
enum GraphWorkload {
    static let activitiesPerTrip = 10

    /// The number of trips for a scale (10,000 at the default 100,000).
    static func trips(scale: Int) -> Int { max(scale / 10, 1) }

    static func activityName(_ trip: Int, _ index: Int) -> String { "Activity \(trip)-\(index)" }
    static func activityCost(_ trip: Int, _ index: Int) -> Double { Double((trip * 10 + index) % 500) / 2 }

    /// The activity table of the raw and GRDB contenders, next to their shared trip table.
    static let schema = """
        CREATE TABLE activity (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cost REAL NOT NULL,
            trip INTEGER REFERENCES trip(id) ON DELETE CASCADE);
        CREATE INDEX activity_trip ON activity(trip);
        """

    /// Visits every activity of every trip, as an app showing them would, and returns the checksum
    /// every contender computes: activities visited plus their whole-number costs.
    ///
    /// The properties are read through closures that the compiler inlines, as an app's own
    /// `trip.activities` reads them: a key path to a computed property (a model's, a Fluent
    /// model's) is projected at run time, a key path to a struct's stored field is not.
    @inline(__always)
    static func visit<Trip, Child, Children: Sequence<Child>>(
        _ trips: [Trip], activities: (Trip) -> Children, cost: (Child) -> Double
    ) -> Int {
        var visited = 0
        var total = 0.0
        for trip in trips {
            for activity in activities(trip) {
                visited += 1
                total += cost(activity)
            }
        }
        return visited + Int(total)
    }
}

// MARK: SQLite C

extension RawSQLite {
    /// A trip and its activities as an app holds them.
    struct TripWithActivitiesData {
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
            let loaded = try reader.fetchGraph()
            return GraphWorkload.visit(loaded, activities: { $0.activities }, cost: { $0.cost })
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }

    func insertGraph(_ trips: [TripData], activitiesPerTrip: Int = GraphWorkload.activitiesPerTrip) throws -> Int {
        let tripInsert = try prepare(Self.insertSQL)
        let activity = try prepare("INSERT INTO activity (name, cost, trip) VALUES (?,?,?)")
        defer {
            sqlite3_finalize(tripInsert)
            sqlite3_finalize(activity)
        }
        try exec("BEGIN IMMEDIATE")
        for (number, trip) in trips.enumerated() {
            sqlite3_reset(tripInsert)
            bind(trip, to: tripInsert)
            guard sqlite3_step(tripInsert) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            let id = sqlite3_last_insert_rowid(db)
            for index in 0..<activitiesPerTrip {
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
    private func fetchGraph() throws -> [TripWithActivitiesData] {
        let tripSelect = try prepare("SELECT \(Self.columns) FROM trip")
        let activities = try prepare("SELECT name, cost, trip FROM activity WHERE trip IN (SELECT id FROM trip) ORDER BY trip, id")
        defer {
            sqlite3_finalize(tripSelect)
            sqlite3_finalize(activities)
        }
        var ids: [Int64] = []
        while sqlite3_step(tripSelect) == SQLITE_ROW { ids.append(sqlite3_column_int64(tripSelect, 0)) }
        sqlite3_reset(tripSelect)
        var result = zip(ids, fetch(tripSelect)).map { TripWithActivitiesData(id: $0, trip: $1) }
        var position: [Int64: Int] = [:]
        for (index, trip) in result.enumerated() { position[trip.id] = index }
        while sqlite3_step(activities) == SQLITE_ROW {
            guard let index = position[sqlite3_column_int64(activities, 2)] else { continue }
            result[index].activities.append((text(activities, 0), sqlite3_column_double(activities, 1)))
        }
        return result
    }
}

// MARK: GRDB

extension TripRecord {
    /// A trip's activities, for W7.
    static let activities = hasMany(ActivityRecord.self, using: ForeignKey(["trip"]))
}

struct ActivityRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "activity"
    var id: Int64?
    var name: String
    var cost: Double
    var trip: Int64

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A trip with its activities, as GRDB's `including(all:)` decodes it.
struct TripWithActivities: Decodable, FetchableRecord {
    var trip: TripRecord
    var activities: [ActivityRecord]
}

extension GRDBContender {
    /// Inserts the trips with their activities in one transaction; returns the number of trips.
    static func insertGraph(_ trips: [TripData], activitiesPerTrip: Int, into queue: DatabaseQueue) throws -> Int {
        try queue.write { db in
            for (number, trip) in trips.enumerated() {
                var record = TripRecord(trip)
                try record.insert(db)
                for index in 0..<activitiesPerTrip {
                    var activity = ActivityRecord(
                        name: GraphWorkload.activityName(number, index), cost: GraphWorkload.activityCost(number, index), trip: record.id!)
                    try activity.insert(db)
                }
            }
            return trips.count
        }
    }

    func runGraph(scale: Int) throws -> (seconds: Double, checksum: Int) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: sharedPragmas) }
        let queue = try DatabaseQueue(path: path + "-w7", configuration: configuration)
        try queue.write { db in try db.execute(sql: sharedSchema + GraphWorkload.schema) }
        let trips = TripData.generate(count: GraphWorkload.trips(scale: scale))
        let insert = try time { try Self.insertGraph(trips, activitiesPerTrip: GraphWorkload.activitiesPerTrip, into: queue) }
        let fetch = try time {
            let loaded = try queue.read { db in
                try TripRecord.including(all: TripRecord.activities.forKey("activities")).asRequest(of: TripWithActivities.self).fetchAll(db)
            }
            return GraphWorkload.visit(loaded, activities: { $0.activities }, cost: { $0.cost })
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }
}

// MARK: OpenSwiftData

/// W7's trip: the fields of `Trip` plus its activities. A class of its own, so that the trip of
/// W1–W6 has no relationship (W6 deletes in SQL alone, as the other contenders do).
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
    /// Inserts the trips with their activities in one save; returns the number of trips.
    static func insertGraph(_ trips: [TripData], activitiesPerTrip: Int, into container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        for (number, trip) in trips.enumerated() {
            let voyage = Voyage(trip)
            context.insert(voyage)
            for index in 0..<activitiesPerTrip {
                voyage.activities.append(Activity(
                    name: GraphWorkload.activityName(number, index), cost: GraphWorkload.activityCost(number, index)))
            }
        }
        try context.save()
        return trips.count
    }

    func runGraph(scale: Int) throws -> (seconds: Double, checksum: Int) {
        let trips = TripData.generate(count: GraphWorkload.trips(scale: scale))
        let writer = try ModelContainer(for: Schema([Voyage.self, Activity.self]), configurations: [configuration("-w7")])
        let insert = try time { try Self.insertGraph(trips, activitiesPerTrip: GraphWorkload.activitiesPerTrip, into: writer) }
        // A fresh container: nothing registered, nothing cached.
        let reader = try ModelContainer(for: Schema([Voyage.self, Activity.self]), configurations: [configuration("-w7")])
        let fetch = try time {
            let context = ModelContext(reader)
            var descriptor = FetchDescriptor<Voyage>()
            descriptor.relationshipKeyPathsForPrefetching = [\.activities]
            let voyages = try context.fetch(descriptor)
            return GraphWorkload.visit(voyages, activities: { $0.activities }, cost: { $0.cost })
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }
}
