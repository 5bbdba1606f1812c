import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import SyncBenchmarkSupport

// Fan-out from one sync server process to many connected clients, on loopback:
//
//   Scripts/with-postgres.sh Benchmarks/Scripts/fanout.sh [--clients 1000] [--samples 20] [--same-user]
//
// The server runs in a process of its own (this program, `serve`), so that its memory and threads
// are its own. One owner's device (a SyncEngine) holds a trip and shares it, read-only, with each
// of C other users (with --same-user, the C clients are the owner's own devices instead). Each
// client keeps one notification channel open, as a continuous engine does: a pull that waits on
// the server for changes (`GET /v1/changes?wait=20`), answered as soon as a change reaches its
// user, and opened again at once. The owner changes the trip and pushes it, again and again; for
// each change, the time from the save until each client's waiting pull answers with it: p50, p99
// and max over every client and change. The server's resident memory and threads are read before
// the clients connect and while all of them wait.

@Model
final class Trip {
    var name: String
    var price: Double

    init(name: String, price: Double) {
        self.name = name
        self.price = price
    }
}

/// A process's resident memory (MiB) and thread count, from /proc.
func usage(of pid: Int32) -> (resident: Double, threads: Int) {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
    func value(_ key: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return Double(line.split(whereSeparator: \.isWhitespace).dropFirst().first.map(String.init) ?? "") ?? 0
    }
    return (value("VmRSS:") / 1024, Int(value("Threads:")))
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

let clientCount = option("clients", 1000)
let samples = option("samples", 20)
let sameUser = CommandLine.arguments.contains("--same-user")
var tokens = ["owner-token": "owner"]
for index in 0..<clientCount { tokens["reader-\(index)"] = "reader-\(index)" }
guard let postgresURL = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"] else {
    say("OSD_POSTGRES_URL is not set: run Scripts/with-postgres.sh Benchmarks/Scripts/fanout.sh")
    exit(2)
}
var logger = Logger(label: "fan-out")
logger.logLevel = .critical

if CommandLine.arguments.dropFirst().first == "serve" {
    let server = try SyncServer(
        postgresURL: postgresURL, name: text("name") ?? "fanout", schema: Schema([Trip.self]), authenticator: TokenFileAuthenticator(users: tokens),
        logger: logger)
    try await server.run(port: 0) { port in say("listening on \(port)") }
    exit(0)
}

// The server process.
let name = "fanout_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased()
let serverProcess = Process()
serverProcess.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
serverProcess.arguments = ["serve", "--name", name, "--clients", "\(clientCount)"]
let serverOutput = Pipe()
serverProcess.standardOutput = serverOutput
try serverProcess.run()
var line = Data()
while true {
    let byte = serverOutput.fileHandleForReading.readData(ofLength: 1)
    if byte.isEmpty || byte == Data([0x0A]) { break }
    line.append(byte)
}
guard let port = Int(String(decoding: line, as: UTF8.self).dropFirst("listening on ".count)), let serverURL = URL(string: "http://127.0.0.1:\(port)") else {
    say("The server did not start: \(String(decoding: line, as: UTF8.self))")
    exit(1)
}
defer { serverProcess.terminate() }
let serverPID = serverProcess.processIdentifier
say("Fan-out on loopback: \(clientCount) clients, \(samples) changes, " + (sameUser ? "all the owner's devices" : "each client another user the trip is shared with")
    + "; \(ProcessInfo.processInfo.activeProcessorCount) cores")

// The owner's device, its trip, and the shares.
let directory = FileManager.default.temporaryDirectory.appending(path: "osd-fanout-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: directory.appending(path: "owner.store")))
let engine = SyncEngine(container: container, configuration: SyncConfiguration(serverURL: serverURL, token: "owner-token"))
let context = ModelContext(container)
let trip = Trip(name: "Lisbon", price: 0)
context.insert(trip)
try context.save()
try await engine.sync()
if !sameUser {
    let began = ContinuousClock.now
    for index in 0..<clientCount { try await engine.share(trip, with: "reader-\(index)", permission: .readOnly) }
    say(String(format: "shared the trip with %d users in %.1f s", clientCount, milliseconds(ContinuousClock.now - began) / 1000))
}

// The clients' notification channels.
var httpConfiguration = HTTPClient.Configuration()
httpConfiguration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: clientCount + 16)
httpConfiguration.timeout = .init(connect: .seconds(10), read: .seconds(60))
let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)

/// When each client's waiting pulls answered with rows.
actor Arrivals {
    var times: [[ContinuousClock.Instant]]
    var connected = 0
    init(count: Int) { times = Array(repeating: [], count: count) }
    func note(_ client: Int, at instant: ContinuousClock.Instant) { times[client].append(instant) }
    func noteConnected() { connected += 1 }
    func count(after instant: ContinuousClock.Instant) -> Int { times.filter { $0.contains { $0 >= instant } }.count }
}
let arrivals = Arrivals(count: clientCount)

/// A pull's cursor and row count, read from its JSON.
func readPage(_ body: ByteBuffer) -> (cursor: Int64, rows: Int) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else { return (-1, 0) }
    return ((object["cursor"] as? NSNumber)?.int64Value ?? -1, (object["rows"] as? [Any])?.count ?? 0)
}

func pull(_ client: Int, after cursor: Int64, wait: Int) async throws -> (cursor: Int64, rows: Int) {
    var request = HTTPClientRequest(url: serverURL.absoluteString + "/v1/changes?client=fanout-\(client)&after=\(cursor)&limit=1000" + (wait > 0 ? "&wait=\(wait)" : ""))
    request.headers.add(name: "Authorization", value: "Bearer " + (sameUser ? "owner-token" : "reader-\(client)"))
    let response = try await http.execute(request, timeout: .seconds(60))
    let body = try await response.body.collect(upTo: 64 << 20)
    guard response.status == .ok else { throw SyncError(.serverFailure, "HTTP \(response.status.code) for client \(client)") }
    return readPage(body)
}

let before = usage(of: serverPID)
let readers = Task {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for client in 0..<clientCount {
            group.addTask {
                var (cursor, _) = try await pull(client, after: 0, wait: 0)
                await arrivals.noteConnected()
                while !Task.isCancelled {
                    let page = try await pull(client, after: cursor, wait: 20)
                    if page.rows > 0 { await arrivals.note(client, at: ContinuousClock.now) }
                    if page.cursor >= 0 { cursor = page.cursor }
                }
            }
        }
        try await group.waitForAll()
    }
}
while await arrivals.connected < clientCount { try await Task.sleep(for: .milliseconds(100)) }
try await Task.sleep(for: .seconds(2))
let waiting = usage(of: serverPID)
say(String(format: "server process: resident %.0f MiB, %d threads before the clients connect; %.0f MiB, %d threads with %d waiting: %.1f KiB per connected client",
           before.resident, before.threads, waiting.resident, waiting.threads, clientCount, (waiting.resident - before.resident) * 1024 / Double(clientCount)))

var latencies: [Double] = []
var missed = 0
for sample in 0..<samples {
    let began = ContinuousClock.now
    trip.price = Double(sample + 1)
    try context.save()
    try await engine.sync()
    while await arrivals.count(after: began) < clientCount, ContinuousClock.now - began < .seconds(10) {
        try await Task.sleep(for: .milliseconds(2))
    }
    let times = await arrivals.times
    for client in 0..<clientCount {
        if let arrived = times[client].first(where: { $0 >= began }) {
            latencies.append(milliseconds(arrived - began))
        } else {
            missed += 1
        }
    }
    try await Task.sleep(for: .milliseconds(300))
}
readers.cancel()
let sorted = latencies.sorted()
func percentile(_ fraction: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }
let end = usage(of: serverPID)
say(String(format: "fan-out, save to every client's answer (%d changes × %d clients): p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d not received within 10 s",
           samples, clientCount, percentile(0.5), percentile(0.99), sorted.last ?? .nan, missed))
say(String(format: "server process at the end: resident %.0f MiB, %d threads", end.resident, end.threads))
try? await http.shutdown()
serverProcess.terminate()
exit(0)
