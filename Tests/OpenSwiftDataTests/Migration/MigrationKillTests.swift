import Foundation
import MigrationScenarios
import OpenSwiftData
import Testing

/// Migrations killed with SIGKILL at random moments: the next open finishes or redoes them, never
/// leaves half of one. `swift run -c release MigrationKill --kills 100` runs 600 kills. In the
/// PostgreSQL pass each store is a namespace (of fewer rows, a quarter of the kills: each kill
/// starts from a namespace written anew), and the server must hold the migration whole or not at
/// all.
@Suite(.serialized) struct MigrationKillTests {
    /// The `MigrationKill` executable that `swift build` puts beside the test bundle.
    var worker: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("MigrationKill")
    }

    @Test(arguments: [(KillScenario.didMigrate, 8), (.willMigrate, 4), (.twoStages, 4), (.lightweight, 4), (.creation, 4), (.failing, 4), (.downgrade, 4)])
    func aKilledMigrationIsFinishedOrRedoneOnTheNextOpen(scenario: KillScenario, kills: Int) throws {
        #expect(FileManager.default.isExecutableFile(atPath: worker.path), "the MigrationKill worker is built with the tests")
        let seed = UInt64.random(in: 0...UInt64(UInt32.max))
        let server = TemporaryStore.defaultBackend == .postgres ? PostgresTestServer.url : nil
        // Half the kills unless the full counts were asked for (`OSD_TEST_COUNTS=full`). A kill on
        // PostgreSQL costs a namespace of its own: a quarter of those there, and
        // `MigrationKill --postgres` in Scripts/long-checks.sh for the full count.
        let asked = TestCounts.count(quick: max(kills / 2, 1), full: kills)
        let kills = server == nil ? asked : max(asked / 4, 1)
        var run = KillRun(worker: worker, scenario: scenario, rows: server == nil ? 20_000 : TestCounts.count(quick: 1_000, full: 2_000), seed: seed, postgresServer: server)
        let report = try run.run(kills: kills)
        print("\(scenario.rawValue), seed \(seed): \(report.kills) kills, \(report.landedDuring) during, \(report.finishedFirst) after")
        #expect(report.kills == kills)
        #expect(report.violations.isEmpty, "seed \(seed): \(report.violations.joined(separator: "\n"))")
    }
}
