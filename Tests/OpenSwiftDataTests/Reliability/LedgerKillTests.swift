import Foundation
import Testing

/// A writer killed with SIGKILL at 50 random moments on one ledger store (`Tools/LedgerKill`;
/// `swift run -c release LedgerKill` runs 1,000): every committed save is whole, none is half
/// there, and the file passes SQLite's integrity check after each kill.
@Suite struct LedgerKillTests {
    @Test func aWriterKilledFiftyTimesLeavesAConsistentLedger() throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("LedgerKill")
        let process = Process()
        process.executableURL = binary
        let seed = UInt64.random(in: 1...1_000_000)
        process.arguments = ["--kills", "50", "--seed", "\(seed)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "rerun with `swift run LedgerKill --kills 50 --seed \(seed)`: \(text)")
        #expect(text.contains("0 violations"), "\(text)")
        #expect(!text.contains(" 0 transfers"), "the writer got to write between kills: \(text)")
    }
}
