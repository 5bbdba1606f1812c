import Foundation
import PredicateFuzzing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills a process at random moments while it migrates (or creates) a store, then checks the
/// store as the next open finds it.
public struct KillRun {
    /// The executable that runs `worker STORE SCENARIO ROWS` (see `Tools/MigrationKill`).
    public let worker: URL
    /// What the killed process does.
    public let scenario: KillScenario
    /// The number of rows of the store each kill starts from.
    public let rows: Int
    /// Draws the moments of the kills; a seed names a run.
    public var random: SplitMix64
    /// The PostgreSQL server whose namespaces the stores are, or `nil` for store files.
    public let postgresServer: URL?

    /// A run of kills of `worker` doing `scenario` on stores of `rows` rows, its moments drawn from
    /// `seed`: files, or namespaces on `postgresServer`.
    public init(worker: URL, scenario: KillScenario, rows: Int, seed: UInt64, postgresServer: URL? = nil) {
        self.worker = worker
        self.scenario = scenario
        self.rows = rows
        self.random = SplitMix64(seed: seed)
        self.postgresServer = postgresServer
    }

    /// What a series of kills found.
    public struct Report: Sendable {
        /// The kills made.
        public var kills = 0
        /// Kills after which a migration was in progress (its marker or backup beside the store),
        /// or, when creating, the store was incomplete.
        public var landedDuring = 0
        /// Runs that finished before the kill.
        public var finishedFirst = 0
        /// What the checks after the kills found wrong, one line each, empty when nothing.
        public var violations: [String] = []
    }

    /// Runs `kills` kills, each on a fresh copy of one V1 store (on PostgreSQL, a fresh namespace
    /// of the same rows), at a moment drawn uniformly over the time an uninterrupted run takes once
    /// the worker has started.
    public mutating func run(kills: Int) throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("osd-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let template = directory.appendingPathComponent("template.store")
        if scenario != .creation, postgresServer == nil {
            try scenario.createStartingStore(.file(template), rows: rows)
            try KillScenario.checkpoint(template)
        }
        // How long the work takes uninterrupted, from the worker's "start" to its exit.
        let measured = try fresh(from: template, in: directory, name: "measure")
        let clock = ContinuousClock()
        let process = try launch(measured)
        let started = clock.now
        process.waitUntilExit()
        let duration = clock.now - started
        guard process.terminationStatus == 0 else { throw KillRunError.workerFailed(scenario, process.terminationStatus) }
        var report = Report()
        for index in 0..<kills {
            let store = try fresh(from: template, in: directory, name: "kill-\(index)")
            let worker = try launch(store)
            let delay = Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds)
            usleep(UInt32(Double.random(in: 0..<1, using: &random) * delay * 1_000_000))
            kill(worker.processIdentifier, SIGKILL)
            worker.waitUntilExit()
            report.kills += 1
            if worker.terminationReason == .exit { report.finishedFirst += 1 }
            if store.migrationInProgress { report.landedDuring += 1 }
            let violations = scenario.verify(store, rows: rows, openOldFirst: index % 2 == 0)
            report.violations += violations.map { "\(scenario.rawValue) kill \(index): \($0)" }
            if case .file(let url) = store { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        }
        return report
    }

    /// A copy of the template in a directory of its own (so that leftovers are easy to see); on
    /// PostgreSQL, a fresh namespace with the template's rows.
    private func fresh(from template: URL, in directory: URL, name: String) throws -> KillStore {
        if let postgresServer {
            let store = KillStore.freshPostgres(on: postgresServer, prefix: "kill")
            if scenario != .creation { try scenario.createStartingStore(store, rows: rows) }
            return store
        }
        let folder = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("rows.store")
        if scenario != .creation { try FileManager.default.copyItem(at: template, to: store) }
        return .file(store)
    }

    /// Starts the worker and returns once it says it has started (before it opens the store).
    private func launch(_ store: KillStore) throws -> Process {
        let process = Process()
        process.executableURL = worker
        process.arguments = ["worker", store.argument, scenario.rawValue, String(rows)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        return process
    }
}

/// Why a kill run could not start.
public enum KillRunError: Error, CustomStringConvertible {
    case workerFailed(KillScenario, Int32)
    case checkpointFailed(String)

    public var description: String {
        switch self {
        case .workerFailed(let scenario, let status): "the \(scenario.rawValue) worker failed uninterrupted (exit status \(status))"
        case .checkpointFailed(let path): "the template store \(path) could not be checkpointed"
        }
    }
}
