import Foundation
import Testing

/// Runs the `MemoryProbe` helper (built with the tests) on a store of its own and returns how many
/// bytes its resident memory grew after a warm-up: measured in a process of its own, since the
/// tests running beside each other in this one would move any figure taken here.
///
/// The probe works on a SQLite file whatever the default store is: the PostgreSQL pass
/// (`TestCounts.isPostgresPass`), which would run the same probe again, returns `nil`.
func residentGrowth(ofProbe work: String, rounds: Int) throws -> Int? {
    guard !TestCounts.isPostgresPass else { return nil }
    let store = TemporaryStore()
    let (status, text) = try HelperProcess.run("MemoryProbe", [store.url.path, work, "\(rounds)"])
    #expect(status == 0, "MemoryProbe \(work): \(text)")
    guard let growth = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw UnreadableProbeOutput(text: text) }
    return growth
}

/// What a memory probe printed instead of a number of bytes.
struct UnreadableProbeOutput: Error, CustomStringConvertible {
    let text: String
    var description: String { "MemoryProbe printed \(text)" }
}

/// Whether this process runs under ThreadSanitizer, whose runtime defines `__tsan_init`: its
/// shadow memory and histories grow, so memory bounds do not apply.
let isRunningUnderThreadSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
