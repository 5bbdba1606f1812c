import Foundation
import Testing

/// A writer killed with SIGKILL at 15 random moments (30 with `OSD_TEST_COUNTS=full`) on one
/// ledger store (`Tools/LedgerKill`; `swift run -c release LedgerKill` runs 1,000): every committed save is whole, none is half
/// there, and the file passes SQLite's integrity check after each kill. In the PostgreSQL pass the
/// ledger is a PostgreSQL store, and the server must hold only whole saves.
@Suite struct LedgerKillTests {
    @Test func aWriterKilledRepeatedlyLeavesAConsistentLedger() throws {
        let seed = UInt64.random(in: 1...1_000_000)
        let postgres = TemporaryStore.defaultBackend == .postgres ? ["--postgres"] : []
        let kills = TestCounts.count(quick: 15, full: 30)
        let (status, text) = try HelperProcess.run("LedgerKill", ["--kills", "\(kills)", "--seed", "\(seed)"] + postgres)
        #expect(status == 0, "rerun with `swift run LedgerKill --kills 50 --seed \(seed) \(postgres.joined())`: \(text)")
        #expect(text.contains("0 violations"), "\(text)")
        #expect(!text.contains(" 0 transfers"), "the writer got to write between kills: \(text)")
    }
}
