import Foundation
import Testing

/// The disk fills (a file-size limit in a process of its own, `Tools/FaultProbe`) during a save and
/// during migrations: each throws, the file stays valid and opens, the context keeps its changes,
/// and the same work succeeds once space is freed.
@Suite struct DiskFullTests {
    @Test func savesAndMigrationsOnAFullDiskThrowAndLoseNothing() throws {
        let store = TemporaryStore()
        let (status, text) = try HelperProcess.run("FaultProbe", [store.folder.path, "diskfull"])
        #expect(status == 0, "\(text)")
        #expect(!text.contains("FAILED"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("ok:") }.count == 11, "every check ran: \(text)")
    }
}
