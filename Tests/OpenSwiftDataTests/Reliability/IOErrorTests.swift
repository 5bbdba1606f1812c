import Foundation
import Testing

/// I/O calls fail (a SQLite VFS in `Tools/FaultProbe`'s own process fails the n-th read, write,
/// sync, truncation or shared-memory mapping, for every n an operation makes, once or from then
/// on): each save, fetch and migrating open throws a `SwiftDataError` or succeeds; a failed save
/// leaves the store as it was, valid, and the context with its changes, and the same save succeeds
/// once the calls succeed again.
@Suite struct IOErrorTests {
    @Test func savesFetchesAndOpensMeetingIOErrorsThrowAndLoseNothing() throws {
        let store = TemporaryStore()
        let (status, text) = try HelperProcess.run("FaultProbe", [store.folder.path, "ioerror"])
        #expect(status == 0, "\(text)")
        #expect(!text.contains("FAILED"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("ok:") }.count == 12, "every check ran: \(text)")
    }
}
