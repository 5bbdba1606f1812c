import Foundation
import GRDB

/// GRDB with idiomatic Codable records.
struct TripRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "trip"
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.timeIntervalSinceReferenceDate
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

final class GRDBContender: Contender {
    let queue: DatabaseQueue
    let path: String

    init(path: String, rows: Int) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: sharedPragmas) }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        self.path = path
        try queue.write { db in try db.execute(sql: sharedSchema) }
        if rows > 0 { _ = try insert(TripData.generate(count: rows)) }
    }

    func insert(_ trips: [TripData]) throws -> Int {
        try queue.write { db in
            for trip in trips {
                var record = TripRecord(trip)
                try record.insert(db)
            }
            return trips.count
        }
    }

    static let query = TripRecord.filter(Column("isFavorite") == true && Column("rating") >= 3)

    func run(_ workload: Workload, scale: Int) throws -> (seconds: Double, checksum: Int) {
        switch workload {
        case .w1:
            let trips = TripData.generate(count: Workload.insertRows(scale: scale))
            return try time { try insert(trips) }
        case .w2:
            return try time { try queue.read { db in try TripRecord.fetchAll(db).count } }
        case .w3, .w3b:
            let repeats = workload == .w3 ? 1_000 : 10_000
            return try time {
                try queue.read { db in
                    var total = 0
                    for _ in 0..<repeats {
                        total += try Self.query.order(Column("startDate").desc).limit(100).fetchAll(db).count
                    }
                    return total
                }
            }
        case .w4, .w4b:
            let repeats = workload == .w4 ? 1_000 : 10_000
            return try time {
                try queue.read { db in
                    var total = 0
                    for _ in 0..<repeats { total += try Self.query.fetchCount(db) }
                    return total
                }
            }
        case .w5:
            var records = try queue.read { db in try TripRecord.fetchAll(db) }
            return try time {
                try queue.write { db in
                    for index in records.indices {
                        records[index].rating = records[index].rating % 5 + 1
                        try records[index].update(db, columns: ["rating"])
                    }
                    return records.count
                }
            }
        case .w6, .w6k:
            return try time { try queue.write { db in try TripRecord.filter(Column("rating") == 1).deleteAll(db) } }
        case .w6c:
            return try runCascadeDelete(scale: scale)
        case .w7:
            return try runGraph(scale: scale)
        case .w8:
            let trips = TripData.generate(count: 2_000)
            return try time {
                for trip in trips { _ = try insert([trip]) }
                return trips.count
            }
        case .w13:
            return try time {
                var updated = 0
                for round in 0..<Workload.updateRepeats {
                    updated += try queue.write { db in try Self.query.updateAll(db, Column("budget").set(to: Double(round + 1) * 10)) }
                }
                return updated
            }
        case .w12:
            return try time {
                try queue.read { db in
                    var total = 0.0
                    for _ in 0..<Workload.aggregateRepeats {
                        let row = try Self.query.select(sum(Column("budget")), sum(Column("rating"))).asRequest(of: Row.self).fetchOne(db)
                        total += (row?[0] as Double? ?? 0) + Double(row?[1] as Int? ?? 0)
                    }
                    return Int(total)
                }
            }
        case .w14:
            return try time {
                try queue.read { db in
                    var total = 0.0
                    for _ in 0..<Workload.aggregateRepeats {
                        let row = try Self.query.select(average(Column("rating")), min(Column("startDate")), max(Column("startDate")))
                            .asRequest(of: Row.self).fetchOne(db)
                        total += (row?[0] as Double? ?? 0) + (row?[1] as Double? ?? 0) + (row?[2] as Double? ?? 0)
                    }
                    return Int(total)
                }
            }
        case .w10:
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v2") { db in
                try db.alter(table: "trip") { table in
                    table.rename(column: "destination", to: "place")
                    table.add(column: "visits", .integer).notNull().defaults(to: 0)
                }
            }
            return try time {
                try migrator.migrate(queue)
                return scale
            }
        case .w9:
            // GRDB's tool for concurrent reads is a DatabasePool on the same file.
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: sharedPragmas) }
            let pool = try DatabasePool(path: path, configuration: configuration)
            return try time {
                try ReadsWhileWriting.run(
                    reader: {
                        for _ in 0..<ReadsWhileWriting.queriesPerReader {
                            _ = try pool.read { db in try Self.query.order(Column("startDate").desc).limit(100).fetchAll(db) }
                        }
                        return ReadsWhileWriting.queriesPerReader
                    },
                    writer: {
                        for trip in TripData.generate(count: ReadsWhileWriting.writes) {
                            try pool.write { db in
                                var record = TripRecord(trip)
                                try record.insert(db)
                            }
                        }
                        return ReadsWhileWriting.writes
                    })
            }
        }
    }
}
