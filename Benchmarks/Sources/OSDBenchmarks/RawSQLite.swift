import CSQLiteBench
import Foundation

/// Hand-written SQLite C calls: prepared statements, one transaction, no abstraction. The physical limit.
final class RawSQLite: Contender {
    let db: OpaquePointer
    let path: String

    init(path: String, rows: Int) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            throw BenchError("cannot open \(path)")
        }
        db = handle
        self.path = path
        try exec(sharedPragmas)
        try exec(sharedSchema)
        if rows > 0 { _ = try insert(TripData.generate(count: rows)) }
    }

    deinit {
        sqlite3_finalize(insertStatement)
        sqlite3_close_v2(db)
    }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
    }

    /// Runs an aggregate query over the W4 predicate (its one parameter, the least rating, bound
    /// to 3) `Workload.aggregateRepeats` times, and returns the sum of what `read` makes of each
    /// row, as a checksum.
    func repeatAggregate(_ sql: String, _ read: (OpaquePointer) -> Double) throws -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        var total = 0.0
        for _ in 0..<Workload.aggregateRepeats {
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, 3)
            if sqlite3_step(statement) == SQLITE_ROW { total += read(statement) }
        }
        return Int(total)
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        var text = text
        _ = text.withUTF8 { sqlite3_bind_text(statement, index, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), Int32($0.count), osd_sqlite_transient()) }
    }

    func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, column), count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }

    private var insertStatement: OpaquePointer?

    func insert(_ trips: [TripData]) throws -> Int {
        if insertStatement == nil {
            insertStatement = try prepare(Self.insertSQL)
        }
        let statement = insertStatement!
        try exec("BEGIN IMMEDIATE")
        for trip in trips {
            sqlite3_reset(statement)
            bind(trip, to: statement)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        }
        try exec("COMMIT")
        return trips.count
    }

    /// The `INSERT` of a trip row.
    static let insertSQL = "INSERT INTO trip (name, destination, startDate, endDate, rating, isFavorite, budget, notes) VALUES (?,?,?,?,?,?,?,?)"

    /// Binds a trip's values to parameters 1–8 of an `INSERT` of `insertSQL`'s shape.
    func bind(_ trip: TripData, to statement: OpaquePointer) {
        bindText(statement, 1, trip.name)
        bindText(statement, 2, trip.destination)
        sqlite3_bind_double(statement, 3, trip.startDate)
        sqlite3_bind_double(statement, 4, trip.endDate)
        sqlite3_bind_int64(statement, 5, Int64(trip.rating))
        sqlite3_bind_int64(statement, 6, trip.isFavorite ? 1 : 0)
        sqlite3_bind_double(statement, 7, trip.budget)
        if let notes = trip.notes { bindText(statement, 8, notes) } else { sqlite3_bind_null(statement, 8) }
    }

    /// Reads rows into `TripData` values, as an app would hold them.
    func fetch(_ statement: OpaquePointer) -> [TripData] {
        var result: [TripData] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append(TripData(
                name: text(statement, 1), destination: text(statement, 2),
                startDate: sqlite3_column_double(statement, 3), endDate: sqlite3_column_double(statement, 4),
                rating: Int(sqlite3_column_int64(statement, 5)), isFavorite: sqlite3_column_int64(statement, 6) != 0,
                budget: sqlite3_column_double(statement, 7),
                notes: sqlite3_column_type(statement, 8) == SQLITE_NULL ? nil : text(statement, 8)))
        }
        return result
    }

    static let columns = "id, name, destination, startDate, endDate, rating, isFavorite, budget, notes"

    func run(_ workload: Workload, scale: Int) throws -> (seconds: Double, checksum: Int) {
        switch workload {
        case .w1:
            let trips = TripData.generate(count: Workload.insertRows(scale: scale))
            return try time { try insert(trips) }
        case .w2:
            return try time {
                let statement = try prepare("SELECT \(Self.columns) FROM trip")
                defer { sqlite3_finalize(statement) }
                return fetch(statement).count
            }
        case .w3, .w3b:
            let repeats = workload == .w3 ? 1_000 : 10_000
            return try time { try favorites(repeats: repeats) }
        case .w4, .w4b:
            let repeats = workload == .w4 ? 1_000 : 10_000
            return try time {
                let statement = try prepare("SELECT count(*) FROM trip WHERE isFavorite AND rating >= ?")
                defer { sqlite3_finalize(statement) }
                var total = 0
                for _ in 0..<repeats {
                    sqlite3_reset(statement)
                    sqlite3_bind_int64(statement, 1, 3)
                    if sqlite3_step(statement) == SQLITE_ROW { total += Int(sqlite3_column_int64(statement, 0)) }
                }
                return total
            }
        case .w5:
            let select = try prepare("SELECT \(Self.columns) FROM trip")
            var ids: [Int64] = []
            var trips: [TripData] = []
            while sqlite3_step(select) == SQLITE_ROW { ids.append(sqlite3_column_int64(select, 0)) }
            sqlite3_reset(select)
            trips = fetch(select)
            sqlite3_finalize(select)
            return try time {
                let update = try prepare("UPDATE trip SET rating = ? WHERE id = ?")
                defer { sqlite3_finalize(update) }
                try exec("BEGIN IMMEDIATE")
                for (index, trip) in trips.enumerated() {
                    sqlite3_reset(update)
                    sqlite3_bind_int64(update, 1, Int64(trip.rating % 5 + 1))
                    sqlite3_bind_int64(update, 2, ids[index])
                    guard sqlite3_step(update) == SQLITE_DONE else { throw BenchError("update") }
                }
                try exec("COMMIT")
                return trips.count
            }
        case .w6, .w6k:
            return try time {
                let delete = try prepare("DELETE FROM trip WHERE rating = ?")
                defer { sqlite3_finalize(delete) }
                try exec("BEGIN IMMEDIATE")
                sqlite3_bind_int64(delete, 1, 1)
                guard sqlite3_step(delete) == SQLITE_DONE else { throw BenchError("delete") }
                let deleted = Int(sqlite3_changes(db))
                try exec("COMMIT")
                return deleted
            }
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
                let update = try prepare("UPDATE trip SET budget = ? WHERE isFavorite AND rating >= ?")
                defer { sqlite3_finalize(update) }
                var updated = 0
                for round in 0..<Workload.updateRepeats {
                    sqlite3_reset(update)
                    sqlite3_bind_double(update, 1, Double(round + 1) * 10)
                    sqlite3_bind_int64(update, 2, 3)
                    guard sqlite3_step(update) == SQLITE_DONE else { throw BenchError("update") }
                    updated += Int(sqlite3_changes(db))
                }
                return updated
            }
        case .w12:
            return try time {
                try repeatAggregate("SELECT sum(budget), sum(rating) FROM trip WHERE isFavorite AND rating >= ?") { statement in
                    sqlite3_column_double(statement, 0) + Double(sqlite3_column_int64(statement, 1))
                }
            }
        case .w14:
            return try time {
                try repeatAggregate("SELECT avg(rating), min(startDate), max(startDate) FROM trip WHERE isFavorite AND rating >= ?") { statement in
                    sqlite3_column_double(statement, 0) + sqlite3_column_double(statement, 1) + sqlite3_column_double(statement, 2)
                }
            }
        case .w10:
            return try time {
                try exec("BEGIN IMMEDIATE")
                try exec("ALTER TABLE trip RENAME COLUMN destination TO place")
                try exec("ALTER TABLE trip ADD COLUMN visits INTEGER NOT NULL DEFAULT 0")
                try exec("COMMIT")
                return scale
            }
        case .w9:
            // One connection per thread, as SQLite's WAL mode wants for parallel readers.
            let path = self.path
            return try time {
                try ReadsWhileWriting.run(
                    reader: {
                        _ = try RawSQLite(path: path, rows: 0).favorites(repeats: ReadsWhileWriting.queriesPerReader)
                        return ReadsWhileWriting.queriesPerReader
                    },
                    writer: {
                        let writer = try RawSQLite(path: path, rows: 0)
                        for trip in TripData.generate(count: ReadsWhileWriting.writes) { _ = try writer.insert([trip]) }
                        return ReadsWhileWriting.writes
                    })
            }
        }
    }

    /// W3's query, `repeats` times; returns the number of rows read.
    func favorites(repeats: Int) throws -> Int {
        let statement = try prepare("SELECT \(Self.columns) FROM trip WHERE isFavorite AND rating >= ? ORDER BY startDate DESC LIMIT ?")
        defer { sqlite3_finalize(statement) }
        var total = 0
        for _ in 0..<repeats {
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, 3)
            sqlite3_bind_int64(statement, 2, 100)
            total += fetch(statement).count
        }
        return total
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
