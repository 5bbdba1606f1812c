// Runs the benchmark. `OSDBenchmarks` alone runs every workload on every contender, 5 times each,
// one process per run, and prints the markdown table of BENCHMARKS.md. Options:
//   --runs N          runs per workload and contender (default 5)
//   --scale N         the "100,000" of W1–W6 (default 100000)
//   --workloads W1,W2 a subset of workloads
//   --contenders raw,grdb,osd   (PostgreSQL: pgnio,fluent,osdpg, under Scripts/with-postgres.sh)
// `OSDBenchmarks run CONTENDER WORKLOAD SCALE` runs one measurement and prints it as JSON.
// `OSDBenchmarks W11 [--rows N] [--observers N] [--saves N]` runs the live-query workload.
// `OSDBenchmarks T1 [--rows N] [--runs N]` times `osd export` and `osd import` (build the `osd`
// product too); under Scripts/with-postgres.sh, also into and out of PostgreSQL.
import Foundation

let contenderNames = [
    "raw": "SQLite C", "grdb": "GRDB 7.10", "osd": "OpenSwiftData",
    "pgnio": "postgres-nio", "fluent": "Fluent 1.57", "osdpg": "OpenSwiftData on PostgreSQL",
]

func makeContender(_ name: String, path: String, rows: Int) throws -> any Contender {
    switch name {
    case "raw": try RawSQLite(path: path, rows: rows)
    case "grdb": try GRDBContender(path: path, rows: rows)
    case "osd": try OpenSwiftDataContender(path: path, rows: rows)
    case "pgnio": try PostgresNIOContender(path: path, rows: rows)
    case "fluent": try FluentContender(path: path, rows: rows)
    case "osdpg": try OpenSwiftDataContender(path: path, rows: rows, store: .postgres(BenchStore.postgresServer()))
    default: throw BenchError("unknown contender \(name)")
    }
}

/// Measures one workload in this process.
func measureOnce(contender name: String, workload: Workload, scale: Int) throws -> Measurement {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let contender = try makeContender(name, path: folder.appendingPathComponent("bench.sqlite").path, rows: workload.seedRows(scale: scale))
    if ["pgnio", "fluent", "osdpg"].contains(name) { try PostgresSettling.settle() }
    let (seconds, checksum) = try contender.run(workload, scale: scale)
    return Measurement(seconds: seconds, peakRSSKilobytes: peakRSS(), checksum: checksum)
}

/// Measures one workload in a child process, so that its memory is its own.
func measureInChild(contender: String, workload: Workload, scale: Int) throws -> Measurement {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["run", contender, workload.rawValue, "\(scale)"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchError(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
    return try JSONDecoder().decode(Measurement.self, from: output)
}

func option(_ name: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: name), index + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[index + 1]
}

if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "run", let workload = Workload(rawValue: CommandLine.arguments[3]),
   let scale = Int(CommandLine.arguments[4]) {
    do {
        let measurement = try measureOnce(contender: CommandLine.arguments[2], workload: workload, scale: scale)
        print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
    } catch {
        print("\(error)")
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "W11" {
    do {
        try MainActor.assumeIsolated { try ObserverWorkload.main(arguments: CommandLine.arguments) }
    } catch {
        print("\(error)")
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "T1" {
    do {
        try TransferWorkload.main(arguments: CommandLine.arguments)
    } catch {
        print("\(error)")
        exit(1)
    }
    exit(0)
}

let runs = Int(option("--runs") ?? "5") ?? 5
let scale = Int(option("--scale") ?? "100000") ?? 100_000
let workloads = option("--workloads").map { $0.split(separator: ",").compactMap { Workload(rawValue: String($0)) } } ?? Workload.allCases
let contenders = option("--contenders").map { $0.split(separator: ",").map(String.init) } ?? ["raw", "grdb", "osd"]

struct Summary {
    var median: Double
    var min: Double
    var max: Double
    var peakRSS: Int
    var checksum: Int
}

print("| workload | contender | median s | min s | max s | × SQLite C | × GRDB | peak RSS MB | checksum |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for workload in workloads {
    var summaries: [String: Summary] = [:]
    var failures: [String: String] = [:]
    for contender in contenders {
        do {
            var measurements: [Measurement] = []
            for _ in 0..<runs { measurements.append(try measureInChild(contender: contender, workload: workload, scale: scale)) }
            let seconds = measurements.map(\.seconds).sorted()
            summaries[contender] = Summary(
                median: seconds[seconds.count / 2], min: seconds.first!, max: seconds.last!,
                peakRSS: measurements.map(\.peakRSSKilobytes).sorted()[measurements.count / 2], checksum: measurements[0].checksum)
        } catch {
            failures[contender] = "\(error)"
        }
    }
    for contender in contenders {
        let name = contenderNames[contender] ?? contender
        guard let summary = summaries[contender] else {
            print("| \(workload.rawValue) | \(name) | — | — | — | — | — | — | \(failures[contender] ?? "") |")
            continue
        }
        func ratio(_ other: String) -> String {
            guard let base = summaries[other]?.median, base > 0 else { return "—" }
            return String(format: "%.2f", summary.median / base)
        }
        print(String(format: "| %@ | %@ | %.4f | %.4f | %.4f | %@ | %@ | %.1f | %d |",
                     workload.rawValue, name, summary.median, summary.min, summary.max, ratio("raw"), ratio("grdb"),
                     Double(summary.peakRSS) / 1024, summary.checksum))
    }
}
