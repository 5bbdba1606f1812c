import CSQLiteBench
import Foundation
import GRDB
import OpenSwiftData

// W6c: W6's delete (the ~20% of trips with rating == 1, by predicate, one save) on trips that
// each have activities, deleted with them: `.cascade` in OpenSwiftData, `ON DELETE CASCADE` with
// foreign keys on in the C and GRDB contenders. Set up (untimed) with W7's schema and models.

/// W6c's shape.
enum CascadeDeleteWorkload {
    static let activitiesPerTrip = 2

    /// The trips of the data set, `scale` of them.
    static func trips(scale: Int) -> [TripData] { TripData.generate(count: scale) }

    /// The number of trips the delete removes (the checksum).
    static func deletedTrips(_ trips: [TripData]) -> Int { trips.filter { $0.rating == 1 }.count }
}

extension RawSQLite {
    func runCascadeDelete(scale: Int) throws -> (seconds: Double, checksum: Int) {
        let store = try RawSQLite(path: path + "-w6c", rows: 0)
        try store.exec(GraphWorkload.schema)
        _ = try store.insertGraph(CascadeDeleteWorkload.trips(scale: scale), activitiesPerTrip: CascadeDeleteWorkload.activitiesPerTrip)
        return try time {
            let delete = try store.prepare("DELETE FROM trip WHERE rating = ?")
            defer { sqlite3_finalize(delete) }
            try store.exec("BEGIN IMMEDIATE")
            sqlite3_bind_int64(delete, 1, 1)
            guard sqlite3_step(delete) == SQLITE_DONE else { throw BenchError("delete") }
            let deleted = Int(sqlite3_changes(store.db))
            try store.exec("COMMIT")
            return deleted
        }
    }
}

extension GRDBContender {
    func runCascadeDelete(scale: Int) throws -> (seconds: Double, checksum: Int) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: sharedPragmas) }
        let queue = try DatabaseQueue(path: path + "-w6c", configuration: configuration)
        try queue.write { db in try db.execute(sql: sharedSchema + GraphWorkload.schema) }
        _ = try Self.insertGraph(CascadeDeleteWorkload.trips(scale: scale), activitiesPerTrip: CascadeDeleteWorkload.activitiesPerTrip, into: queue)
        return try time { try queue.write { db in try TripRecord.filter(Column("rating") == 1).deleteAll(db) } }
    }
}

extension OpenSwiftDataContender {
    func runCascadeDelete(scale: Int) throws -> (seconds: Double, checksum: Int) {
        let trips = CascadeDeleteWorkload.trips(scale: scale)
        let container = try ModelContainer(for: Schema([Voyage.self, Activity.self]), configurations: [configuration("-w6c")])
        _ = try Self.insertGraph(trips, activitiesPerTrip: CascadeDeleteWorkload.activitiesPerTrip, into: container)
        let count = CascadeDeleteWorkload.deletedTrips(trips)
        return try time {
            let context = ModelContext(container)
            try context.delete(model: Voyage.self, where: #Predicate { $0.rating == 1 })
            try context.save()
            return count
        }
    }
}
