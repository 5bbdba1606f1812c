import CSQLiteBench
import Foundation
import Logging
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import PostgresNIO
import SyncBenchmarkSupport

// Sync on loopback: server, PostgreSQL and clients on this machine, one process.
//
//   Scripts/with-postgres.sh Benchmarks/Scripts/sync.sh [--rows N] [--clients N] [--samples N]
//
// 1. Pushes: one client sends N new trips; row changes per second into the server.
// 2. Initial sync: a new client downloads them; rows per second and memory, next to the baseline
//    (the same rows read with postgres-nio and written with raw SQLite in one transaction).
// 3. Propagation: with C clients synchronizing continuously, a save on one until another's
//    ResultsObserver shows it; p50 and p99.

@Model
final class Trip {
    var name: String
    var price: Double
    var start: Date
    var notes: String?
    var rating: Int

    init(name: String, price: Double, start: Date, notes: String?, rating: Int) {
        self.name = name
        self.price = price
        self.start = start
        self.notes = notes
        self.rating = rating
    }
}

/// The process's resident and peak memory, in MiB.
func memory() -> (resident: Double, peak: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func value(_ key: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return (Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? "") ?? 0) / 1024
    }
    return (value("VmRSS:"), value("VmHWM:"))
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

let rows = option("rows", 100_000)
let clientCount = option("clients", 100)
let samples = option("samples", 50)
guard let postgresURL = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"] else {
    say("OSD_POSTGRES_URL is not set: run Scripts/with-postgres.sh Benchmarks/Scripts/sync.sh")
    exit(2)
}
// With --same-user, every propagation client is one user's device (each change reaches them all);
// otherwise the writer and the observer share a user, and every other client is a user of its own.
let sameUser = CommandLine.arguments.contains("--same-user")
var tokens = ["t": "u", "pair": "pair"]
for index in 0..<clientCount { tokens["p\(index)"] = sameUser ? "pair" : "user-\(index)" }
let directory = FileManager.default.temporaryDirectory.appending(path: "osd-sync-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

var logger = Logger(label: "sync-bench")
logger.logLevel = .critical
let name = "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased()
let server = try SyncServer(
    postgresURL: postgresURL, name: name, schema: Schema([Trip.self]), authenticator: TokenFileAuthenticator(users: tokens), logger: logger)
let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
let serverTask = Task { try await server.run(port: 0) { portContinuation.yield($0) } }
var listening: Int?
for await port in ports {
    listening = port
    break
}
guard let port = listening, let serverURL = URL(string: "http://127.0.0.1:\(port)") else { exit(1) }
let configuration = SyncConfiguration(serverURL: serverURL, token: "t", pushBatchSize: 5000, pullPageSize: 5000)

func device(_ label: String, token: String = "t") throws -> (ModelContainer, SyncEngine) {
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: directory.appending(path: "\(label).store")))
    var configuration = configuration
    configuration.token = token
    return (container, SyncEngine(container: container, configuration: configuration))
}

say("Sync on loopback: \(rows) trips, \(clientCount) clients, \(samples) propagation samples; \(ProcessInfo.processInfo.activeProcessorCount) cores")

// 1. Pushes.
let (seeder, seederEngine) = try device("seeder")
let seedContext = ModelContext(seeder)
let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
for index in 0..<rows {
    seedContext.insert(Trip(name: "Trip \(index)", price: Double(index % 1000) + 0.25, start: start.addingTimeInterval(Double(index)),
                            notes: index % 3 == 0 ? nil : "Notes for trip \(index)", rating: index % 5))
    if index % 10_000 == 9_999 { try seedContext.save() }
}
try seedContext.save()
let pushTime = try await seconds { try await seederEngine.sync() }
say(String(format: "pushes: %d row changes in %.2f s: %.0f row changes/s", rows, pushTime, Double(rows) / pushTime))

// 2. Initial sync, and the baseline.
let (fresh, freshEngine) = try device("fresh")
let before = memory()
let syncTime = try await seconds { try await freshEngine.sync() }
let after = memory()
let received = try ModelContext(fresh).fetchCount(FetchDescriptor<Trip>())
say(String(format: "initial sync: %d rows in %.2f s: %.0f rows/s; resident memory %.0f → %.0f MiB, peak %.0f MiB", received, syncTime, Double(received) / syncTime, before.resident, after.resident, after.peak))

let baselineTime = try await seconds {
    let client = PostgresClient(configuration: PostgresClient.Configuration(
        host: URLComponents(string: postgresURL)?.host ?? "127.0.0.1", port: URLComponents(string: postgresURL)?.port ?? 5432,
        username: URLComponents(string: postgresURL)?.user ?? "postgres", password: nil,
        database: String(URLComponents(string: postgresURL)?.path.dropFirst() ?? ""), tls: .disable), backgroundLogger: logger)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        var db: OpaquePointer?
        sqlite3_open(directory.appending(path: "baseline.sqlite").path, &db)
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE trip (id TEXT PRIMARY KEY, name TEXT, price REAL, start REAL, notes TEXT, rating INTEGER)", nil, nil, nil)
        sqlite3_exec(db, "BEGIN", nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO trip VALUES (?, ?, ?, ?, ?, ?)", -1, &insert, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let result = try await client.query(PostgresQuery(unsafeSQL: "SELECT id, \"values\" FROM \"\(name)_sync\".rows ORDER BY version"), logger: logger)
        for try await (id, values) in result.decode((String, String).self) {
            let object = try JSONSerialization.jsonObject(with: Data(values.utf8)) as? [String: [String: Any]] ?? [:]
            sqlite3_reset(insert)
            sqlite3_bind_text(insert, 1, id, -1, transient)
            sqlite3_bind_text(insert, 2, object["name"]?["text"] as? String ?? "", -1, transient)
            sqlite3_bind_double(insert, 3, (object["price"]?["real"] as? NSNumber)?.doubleValue ?? 0)
            sqlite3_bind_double(insert, 4, (object["start"]?["date"] as? NSNumber)?.doubleValue ?? 0)
            if let notes = object["notes"]?["text"] as? String { sqlite3_bind_text(insert, 5, notes, -1, transient) } else { sqlite3_bind_null(insert, 5) }
            sqlite3_bind_int64(insert, 6, (object["rating"]?["integer"] as? NSNumber)?.int64Value ?? 0)
            sqlite3_step(insert)
        }
        sqlite3_finalize(insert)
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
        sqlite3_close(db)
        group.cancelAll()
    }
}
say(String(format: "baseline (postgres-nio read, raw SQLite write, one transaction): %.0f rows/s; initial sync is %.2f× its time", Double(rows) / baselineTime, syncTime / baselineTime))

// 3. Propagation with clients synchronizing continuously (not the user of the 100,000 trips).
var engines: [SyncEngine] = []
var containers: [ModelContainer] = []
for index in 0..<clientCount {
    let (container, engine) = try device("client-\(index)", token: index < 2 ? "pair" : "p\(index)")
    try await engine.sync()
    engine.start()
    engines.append(engine)
    containers.append(container)
}
let writer = ModelContext(containers[0])
let observer = try ResultsObserver<Trip, Never>(filterBy: #Predicate { $0.rating == 99 }, sortBy: [SortDescriptor(\.name)], modelContext: ModelContext(containers[min(1, clientCount - 1)]))
var latencies: [Double] = []
for sample in 0..<samples {
    let before = observer.results.count
    writer.insert(Trip(name: "Live \(sample)", price: 1, start: start, notes: nil, rating: 99))
    let began = ContinuousClock.now
    try writer.save()
    while observer.results.count == before {
        try await Task.sleep(for: .milliseconds(1))
        if ContinuousClock.now - began > .seconds(10) { break }
    }
    let elapsed = ContinuousClock.now - began
    latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    try await Task.sleep(for: .milliseconds(20))
}
let sorted = latencies.sorted()
let p50 = sorted[min(sorted.count - 1, sorted.count / 2)]
let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
let who = sameUser ? "all one user's" : "the writer and the observer one user's, the others each their own user's"
say("propagation with \(clientCount) clients synchronizing continuously (\(who)): " + String(format: "p50 %.1f ms, p99 %.1f ms, max %.1f ms", p50, p99, sorted.last ?? 0))
for engine in engines { await engine.stop() }
serverTask.cancel()
exit(0)
