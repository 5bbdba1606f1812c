import Foundation

/// A benchmark workload. Each runs in its own process, after an untimed set-up.
enum Workload: String, CaseIterable, Sendable {
    case w1 = "W1", w2 = "W2", w3 = "W3", w4 = "W4", w3b = "W3b", w4b = "W4b", w5 = "W5", w6 = "W6", w6k = "W6k", w6c = "W6c", w7 = "W7", w8 = "W8"
    case w9 = "W9", w10 = "W10", w12 = "W12", w13 = "W13", w14 = "W14"

    var summary: String {
        switch self {
        case .w1: "insert 100,000 trips in one save"
        case .w2: "fetch all 100,000 trips"
        case .w3: "isFavorite && rating >= 3, by startDate desc, limit 100 — 1,000 times (100k rows)"
        case .w4: "fetchCount of that predicate — 1,000 times (100k rows)"
        case .w3b: "the W3 query on 1,000 rows — 10,000 times"
        case .w4b: "the W4 count on 1,000 rows — 10,000 times"
        case .w5: "change one property of all 100,000 loaded trips, save"
        case .w6: "delete the ~20% with rating == 1 by predicate, save"
        case .w6k: "W6, the deleted trips' keys returned to the caller (as OpenSwiftData learns them, for history and didSave)"
        case .w6c: "W6 on 100,000 trips with 2 activities each, deleted with them (cascade)"
        case .w7: "insert 10,000 trips × 10 activities, fetch with activities prefetched, visit all"
        case .w8: "2,000 saves of one new trip each"
        case .w10: "migrate 100,000 trips: rename `destination` to `place`, add `visits` (default 0)"
        case .w12: "sum of budget and of rating where isFavorite && rating >= 3 — 100 times (100k rows)"
        case .w14: "average rating, earliest and latest startDate where isFavorite && rating >= 3 — 100 times (100k rows)"
        case .w13: "set budget where isFavorite && rating >= 3, by predicate, one transaction each — 10 times (100k rows)"
        case .w9: "reads while writing: 4 threads × 2,000 W3b queries while a 5th makes 500 one-row saves (1,000 rows)"
        }
    }

    /// Rows in the store before the timed part (W1 and W8 start empty).
    func seedRows(scale: Int) -> Int {
        switch self {
        case .w1, .w6c, .w7, .w8: 0
        case .w3b, .w4b, .w9: 1_000
        case .w10: scale
        default: scale
        }
    }

    /// How many updates by predicate W13 makes, each setting `budget` to a new value.
    static let updateRepeats = 10

    /// How many times W12 adds up its two sums, and W14 finds its average and extremes.
    static let aggregateRepeats = 100

    /// How many rows W1 inserts.
    static func insertRows(scale: Int) -> Int { scale }
}

/// One trip of the seeded data set, the same for every contender.
struct TripData: Sendable {
    var name: String
    var destination: String
    var startDate: Double
    var endDate: Double
    var rating: Int
    var isFavorite: Bool
    var budget: Double
    var notes: String?

    static let destinations = ["Paris", "Nice", "Kyoto", "Lisbon", "Zürich", "New York", "Oslo", "Cairo"]

    /// The first `count` trips of the seeded data set.
    static func generate(count: Int, seed: UInt64 = 2026) -> [TripData] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return (0..<count).map { index in
            let random = next()
            let start = 800_000_000 + Double(index) * 3_600 + Double(random % 1_000)
            return TripData(
                name: "Trip \(index)",
                destination: destinations[Int(random % UInt64(destinations.count))],
                startDate: start,
                endDate: start + Double(86_400 * (1 + Int(random >> 8) % 14)),
                rating: 1 + Int((random >> 16) % 5),
                isFavorite: (random >> 24) % 3 == 0,
                budget: Double((random >> 32) % 100_000) / 10,
                notes: index % 4 == 0 ? nil : "Note \(index)")
        }
    }
}

/// The timed result of one workload run.
struct Measurement: Codable, Sendable {
    var seconds: Double
    var peakRSSKilobytes: Int
    /// A checksum of what the workload read or wrote, so that contenders are seen to do the same work.
    var checksum: Int
}

/// The settings every contender's connection uses (the same as OpenSwiftData's store).
let sharedPragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY; PRAGMA secure_delete=FAST"

/// The schema of the raw SQLite and GRDB contenders. Only the trip table: an `activity` table
/// referencing it would make their deletes (W6) check a foreign key OpenSwiftData's store does not
/// have until relationships land; W7 will add it for every contender.
let sharedSchema = """
    CREATE TABLE IF NOT EXISTS trip (id INTEGER PRIMARY KEY, name TEXT NOT NULL, destination TEXT NOT NULL, startDate REAL NOT NULL,
        endDate REAL NOT NULL, rating INTEGER NOT NULL, isFavorite INTEGER NOT NULL, budget REAL NOT NULL, notes TEXT);
    """

/// The peak resident memory of this process, from /proc (Linux) in kilobytes.
func peakRSS() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}

/// Runs `body` and returns its duration in seconds.
func time(_ body: () throws -> Int) rethrows -> (seconds: Double, checksum: Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let checksum = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, checksum)
}

/// A library under test.
protocol Contender {
    /// Opens a new store at `path` holding the first `rows` trips of the data set (untimed).
    init(path: String, rows: Int) throws
    /// Runs the timed part of a workload.
    func run(_ workload: Workload, scale: Int) throws -> (seconds: Double, checksum: Int)
}

/// W9's shape: how many readers, how many queries each, how many one-row saves the writer makes.
enum ReadsWhileWriting {
    static let readers = 4
    static let queriesPerReader = 2_000
    static let writes = 500

    /// Runs `writer` on one thread and `reader` on `readers` others, all at once, and returns the
    /// number of queries and saves done (the checksum) when every thread has finished.
    static func run(reader: @escaping @Sendable () throws -> Int, writer: @escaping @Sendable () throws -> Int) throws -> Int {
        let group = DispatchGroup()
        let results = ThreadResults()
        for index in 0...readers {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do { results.add(try (index == 0 ? writer : reader)()) } catch { results.fail(error) }
            }
            thread.start()
        }
        group.wait()
        return try results.total()
    }
}

/// The results of W9's threads.
final class ThreadResults: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var sum = 0
    private var error: (any Error)?

    func add(_ value: Int) { lock.withLock { sum += value } }
    func fail(_ error: any Error) { lock.withLock { self.error = error } }
    func total() throws -> Int {
        try lock.withLock {
            if let error { throw error }
            return sum
        }
    }
}
