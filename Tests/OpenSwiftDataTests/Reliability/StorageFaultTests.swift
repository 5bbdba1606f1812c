import Foundation
import Testing

/// Storage fails under the store, in a process of its own (`Tools/FaultProbe`):
/// - `diskfull`: the disk fills (a file-size limit) during a save and during migrations;
/// - `ioerror`: I/O calls fail (a SQLite VFS fails the n-th read, write, sync, truncation or
///   shared-memory mapping, for every n an operation makes, once or from then on) during saves,
///   updates by predicate, fetches, a results observer's updates and migrating opens.
///
/// Each operation throws a `SwiftDataError` or succeeds; a failed save leaves the store as it was,
/// valid, and the context with its changes, and the same work succeeds once storage works again.
@Suite struct StorageFaultTests {
    @Test(arguments: [("diskfull", 11), ("ioerror", 13)])
    func storageFaultsThrowAndLoseNothing(fault: String, checks: Int) throws {
        let store = TemporaryStore()
        let (status, text) = try HelperProcess.run("FaultProbe", [store.folder.path, fault])
        #expect(status == 0, "\(text)")
        #expect(!text.contains("FAILED"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("ok:") }.count == checks, "every check ran: \(text)")
    }
}
