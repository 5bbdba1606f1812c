import Foundation
import MigrationScenarios

// Kills migrations at random moments and checks every store afterwards: a migration killed at any
// moment is finished or redone on the next open.
//
//   swift run -c release MigrationKill [--kills N] [--rows N] [--seed N] [--scenarios a,b] [--postgres]
//       N kills per scenario (default 100; scenarios didMigrate, willMigrate, twoStages,
//       lightweight, creation, failing, downgrade); prints what each found and exits 1 on any
//       violation. With
//       --postgres, each store is a fresh namespace on the server OSD_POSTGRES_URL names.
//   MigrationKill worker STORE SCENARIO ROWS
//       the process that is killed: migrates (or creates) the store (a file's path, or postgres:NAME).

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "worker" {
    guard arguments.count == 4, let scenario = KillScenario(rawValue: arguments[2]), let rows = Int(arguments[3]) else {
        print("usage: MigrationKill worker STORE SCENARIO ROWS")
        exit(2)
    }
    // Unbuffered, so that the runner sees it at once.
    FileHandle.standardOutput.write(Data("start\n".utf8))
    do {
        let store = try KillStore(argument: arguments[1])
        if scenario == .creation { try KillScenario.createStore(store, rows: rows) } else { try scenario.migrate(store) }
        exit(0)
    } catch {
        print("error: \(error)")
        exit(1)
    }
}

let kills = commandLineOption("--kills").flatMap(Int.init) ?? 100
let rows = commandLineOption("--rows").flatMap(Int.init) ?? 60_000
let seed = commandLineOption("--seed").flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
let scenarios = commandLineOption("--scenarios").map { $0.split(separator: ",").compactMap { KillScenario(rawValue: String($0)) } } ?? KillScenario.allCases
let worker = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
var postgresServer: URL?
if arguments.contains("--postgres") {
    guard let server = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"].flatMap(URL.init(string:)) else {
        print("set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run MigrationKill --postgres")
        exit(2)
    }
    postgresServer = server
}

print("seed \(seed), \(kills) kills per scenario, \(rows) rows\(postgresServer == nil ? "" : ", on PostgreSQL")")
var failed = false
for (offset, scenario) in scenarios.enumerated() {
    var run = KillRun(worker: worker, scenario: scenario, rows: rows, seed: seed &+ UInt64(offset), postgresServer: postgresServer)
    do {
        let report = try run.run(kills: kills)
        // PostgreSQL leaves no trace of an unfinished migration to count kills by.
        let during = postgresServer == nil ? "\(report.landedDuring) during the migration, " : ""
        print("\(scenario.rawValue): \(report.kills) kills, \(during)\(report.finishedFirst) after it finished, \(report.violations.count) violations")
        for violation in report.violations { print("  \(violation)") }
        failed = failed || !report.violations.isEmpty
    } catch {
        print("\(scenario.rawValue): could not run: \(error)")
        failed = true
    }
}
exit(failed ? 1 : 0)
