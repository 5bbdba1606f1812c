import Foundation
import PostgresNIO

// W7 and W6c for hand-written postgres-nio: trips and their activities written a thousand rows to
// a statement with keys drawn ahead, read back in two queries and grouped; the cascade as the
// foreign key's `ON DELETE CASCADE`.
extension PostgresNIOContender {
    /// The activity table, next to the trip table.
    func createActivities() throws {
        try execute("CREATE TABLE activity (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, cost DOUBLE PRECISION NOT NULL, trip BIGINT REFERENCES trip(id) ON DELETE CASCADE)")
        try execute("CREATE INDEX activity_trip ON activity(trip)")
    }

    /// Inserts trips and their activities in one transaction.
    func insertGraph(_ trips: [TripData], activitiesPerTrip: Int) throws -> Int {
        try execute("BEGIN")
        var bindings = PostgresBindings()
        bindings.append(Int64(trips.count))
        let ids = try execute("SELECT nextval('trip_id_seq') AS k FROM generate_series(1, $1::int8) ORDER BY k", bindings).map { try $0.decode(Int64.self) }
        for start in stride(from: 0, to: trips.count, by: 1_000) {
            let range = start..<min(start + 1_000, trips.count)
            var tripBindings = PostgresBindings(capacity: range.count * 9)
            var tuples: [String] = []
            for (row, number) in range.enumerated() {
                let trip = trips[number]
                tuples.append("(" + (1...9).map { "$\(row * 9 + $0)" }.joined(separator: ", ") + ")")
                tripBindings.append(ids[number])
                Self.append(trip, to: &tripBindings)
            }
            try execute("INSERT INTO trip (id, name, destination, startDate, endDate, rating, isFavorite, budget, notes) VALUES \(tuples.joined(separator: ", "))", tripBindings)
            var activityBindings = PostgresBindings(capacity: range.count * activitiesPerTrip * 3)
            var activityTuples: [String] = []
            for number in range {
                for index in 0..<activitiesPerTrip {
                    let base = activityTuples.count * 3
                    activityTuples.append("($\(base + 1), $\(base + 2), $\(base + 3))")
                    activityBindings.append(GraphWorkload.activityName(number, index))
                    activityBindings.append(GraphWorkload.activityCost(number, index))
                    activityBindings.append(ids[number])
                }
            }
            if !activityTuples.isEmpty {
                try execute("INSERT INTO activity (name, cost, trip) VALUES \(activityTuples.joined(separator: ", "))", activityBindings)
            }
        }
        try execute("COMMIT")
        return trips.count
    }

    /// W7: the graph inserted, then every trip and every activity read and grouped under its trip.
    func runGraph(scale: Int) throws -> (seconds: Double, checksum: Int) {
        try createActivities()
        let trips = TripData.generate(count: GraphWorkload.trips(scale: scale))
        let insert = try time { try insertGraph(trips, activitiesPerTrip: GraphWorkload.activitiesPerTrip) }
        let fetch = try time {
            let rows = try execute("SELECT \(Self.columns) FROM trip")
            let ids = try rows.map { try $0.decode((Int64, String).self).0 }
            var grouped = try Self.trips(rows).map { (trip: $0, activities: [(name: String, cost: Double)]()) }
            var position: [Int64: Int] = [:]
            for (index, id) in ids.enumerated() { position[id] = index }
            for row in try execute("SELECT name, cost, trip FROM activity ORDER BY trip, id") {
                let (name, cost, trip) = try row.decode((String, Double, Int64).self)
                if let index = position[trip] { grouped[index].activities.append((name, cost)) }
            }
            return GraphWorkload.visit(grouped, activities: { $0.activities }, cost: { $0.cost })
        }
        return (insert.seconds + fetch.seconds, fetch.checksum)
    }

    /// W6c: W6's delete on trips that have activities, deleted with them by the foreign key.
    func runCascadeDelete(scale: Int) throws -> (seconds: Double, checksum: Int) {
        try createActivities()
        _ = try insertGraph(CascadeDeleteWorkload.trips(scale: scale), activitiesPerTrip: CascadeDeleteWorkload.activitiesPerTrip)
        return try time {
            try execute("BEGIN")
            let deleted = try execute("DELETE FROM trip WHERE rating = 1 RETURNING id").count
            try execute("COMMIT")
            return deleted
        }
    }
}
