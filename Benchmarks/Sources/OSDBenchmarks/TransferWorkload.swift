import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

/// T1: moving a store with `osd`. A store of `rows` trips (W1's data) is exported to JSON files
/// and imported into an empty store; under `Scripts/with-postgres.sh`, also imported into an
/// empty PostgreSQL store and exported from it. Each step runs the `osd` release binary built
/// beside this one (`swift build -c release --product osd`), timed as a whole process, `runs`
/// times on fresh targets; every export must equal the first, byte for byte.
enum TransferWorkload {
    static func main(arguments: [String]) throws {
        let rows = option("--rows").flatMap { Int($0) } ?? 100_000
        let runs = option("--runs").flatMap { Int($0) } ?? 3
        let osd = URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().appendingPathComponent("osd")
        guard FileManager.default.isExecutableFile(atPath: osd.path) else {
            throw BenchError("T1 runs \(osd.path): build it first with `swift build -c release --product osd`")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        let source = path("source.sqlite")
        do {
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: source))))
            for trip in TripData.generate(count: rows) { context.insert(Trip(trip)) }
            try context.save()
        }
        let server = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"]
        print("T1: osd moving \(rows) trips, median of \(runs) runs (\(osd.path))")

        var reference: Data?
        /// Runs osd, returns its seconds; an export's file must equal the first export's.
        func time(_ arguments: [String], exported: String? = nil) throws -> Double {
            let process = Process()
            process.executableURL = osd
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            let start = DispatchTime.now().uptimeNanoseconds
            try process.run()
            let message = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            guard process.terminationStatus == 0 else {
                throw BenchError("osd \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
            }
            if let exported {
                let contents = FileManager.default.contents(atPath: exported + "/Trip.json")
                if reference == nil { reference = contents }
                guard contents != nil, contents == reference else { throw BenchError("\(exported)/Trip.json differs from the first export") }
            }
            return seconds
        }
        func report(_ step: String, _ measure: (Int) throws -> Double) throws {
            let seconds = try (0..<runs).map(measure).sorted()
            let median = seconds[seconds.count / 2]
            print(String(format: "| %@ | %.3f | %.3f | %.3f | %.0f |", step, median, seconds.first!, seconds.last!, Double(rows) / median))
        }

        print("| step | median s | min s | max s | rows/s |")
        print("|---|---:|---:|---:|---:|")
        try report("export a file") { run in try time(["export", source, "--out", path("file\(run)")], exported: path("file\(run)")) }
        try report("import into an empty file") { run in
            let target = path("target\(run).sqlite")
            _ = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: target)))
            return try time(["import", target, "--from", path("file0")])
        }
        guard let server, let url = URL(string: server) else {
            print("(PostgreSQL steps skipped: run under Scripts/with-postgres.sh)")
            return
        }
        var names: [String] = []
        try report("import into an empty PostgreSQL store") { run in
            let name = "bench_t1_\(UInt32.random(in: 0...UInt32.max))"
            names.append(name)
            _ = try ModelContainer(for: Trip.self, configurations: PostgresStoreConfiguration(name: name, url: url))
            return try time(["import", server, "--name", name, "--from", path("file0")])
        }
        try report("export a PostgreSQL store") { run in
            try time(["export", server, "--name", names[run], "--out", path("server\(run)")], exported: path("server\(run)"))
        }
    }
}
