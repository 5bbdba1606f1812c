import Foundation
import OpenSwiftDataSync
@testable import SyncChecking
import Testing

/// The convergence checker's record of a client's writes, when a kill cuts a save off between
/// its commit and its record: the write it replaced rightly never reaches the server, and is not
/// a lost write.
@Suite struct SyncCheckWriteLogTests {
    private let item = "3D172426-0E49-4150-86CD-95E4E3BEE725"

    private func count(_ value: String) -> CheckWrite { CheckWrite(key: item, property: "count", value: value) }

    /// A log file written as a client writes it: `saves` recorded begun and committed, then
    /// `cutOff` (if any) recorded begun only.
    private func log(_ saves: [[CheckWrite]], cutOff: [CheckWrite]? = nil, then later: [[CheckWrite]] = []) throws -> [LoggedWrite] {
        let url = FileManager.default.temporaryDirectory.appending(path: "write-log-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: url) }
        let log = try WriteLog(url: url)
        for writes in saves { try log.begin(writes); try log.commit(writes) }
        if let cutOff { try log.begin(cutOff) }
        for writes in later { try log.begin(writes); try log.commit(writes) }
        try log.handle.close()
        return try WriteLog.read(url)
    }

    /// The server's log holding the item, with the given counts pushed.
    private func server(counts: [Int64]) -> ChangeLog {
        var log = ChangeLog()
        let clock = SyncClock(time: 1, counter: 0, client: "c")
        log.add(.init(seq: 1, id: "i", property: "key", clock: clock, value: .value(.text(item))))
        for (number, count) in counts.enumerated() {
            log.add(.init(seq: Int64(number + 2), id: "i", property: "count", clock: clock, value: .value(.integer(count))))
        }
        return log
    }

    private var final: CheckState { CheckState(rows: [item: ["count": "984"]]) }

    @Test func aSaveCutOffBeforeItsRecordReadsAsUncertain() throws {
        let written = try log([[count("137")]], cutOff: [count("984")])
        #expect(written == [LoggedWrite(write: count("137"), isCertain: true), LoggedWrite(write: count("984"), isCertain: false)])
    }

    @Test func theWriteACutOffSaveReplacedNeedNotReachTheServer() throws {
        let written = try log([[count("797")], [count("137")]], cutOff: [count("984")])
        #expect(server(counts: [797, 984]).lostWrites(written, client: 2, in: final).isEmpty)
        // The cut-off save may not have committed: then the write before it must have arrived.
        #expect(server(counts: [797, 137]).lostWrites(written, client: 2, in: final).isEmpty)
    }

    @Test func aWriteIsLostWhenNeitherItNorTheCutOffSaveReachedTheServer() throws {
        let written = try log([[count("797")], [count("137")]], cutOff: [count("984")])
        #expect(server(counts: [797]).lostWrites(written, client: 2, in: final) == ["client 2's \(item).count = 984 never reached the server (recorded as begun, not as committed: a kill cut its save off)"])
    }

    /// Two saves cut off in a row (the client killed, restarted and killed again before either
    /// was recorded): the first may have committed and the second not, so the first's value
    /// reaching the server, and neither the second's nor the last certain one, is no lost write.
    @Test func anEarlierOfTwoCutOffSavesMayBeWhatReachedTheServer() throws {
        let written = [LoggedWrite(write: count("137"), isCertain: true), LoggedWrite(write: count("984"), isCertain: false),
                       LoggedWrite(write: count("5"), isCertain: false)]
        #expect(server(counts: [984]).lostWrites(written, client: 1, in: final).isEmpty)
        #expect(server(counts: [42]).lostWrites(written, client: 1, in: final) == ["client 1's \(item).count = 5 never reached the server (recorded as begun, not as committed: a kill cut its save off)"])
    }

    /// A deletion cut off by a kill before its save committed: the client, restarted, still holds
    /// the model (and may hang others off it), as the server does, so the deletion is not lost;
    /// one recorded as committed that never reached the server is.
    @Test func aDeletionCutOffBeforeItCommittedNeedNotReachTheServer() throws {
        let deletion = CheckWrite.deletion(of: item)
        let cutOff = try log([[count("137")]], cutOff: [deletion], then: [[count("984")]])
        #expect(cutOff.contains(LoggedWrite(write: deletion, isCertain: false)))
        #expect(server(counts: [137, 984]).lostWrites(cutOff, client: 1, in: final).isEmpty)
        let committed = try log([[count("137")], [deletion]])
        #expect(server(counts: [137]).lostWrites(committed, client: 1, in: final) == ["client 1's deletion of \(item) never reached the server"])
    }

    /// A change of a model another client made, cut off by a kill before its save committed, with
    /// no earlier write of the property: the store keeps the value the server has, and nothing of
    /// the client's need have reached the server. (The checker once reported it lost.)
    @Test func aChangeCutOffBeforeItCommittedNeedNotReachTheServer() throws {
        let written = try log([], cutOff: [count("490")])
        #expect(written == [LoggedWrite(write: count("490"), isCertain: false)])
        #expect(server(counts: [110]).lostWrites(written, client: 0, in: final).isEmpty)
    }

    /// A model made in a save a kill cut off is there at the end only if that save committed:
    /// then its values, or a later write's, must have reached the server.
    @Test func aModelMadeInACutOffSaveMustReachTheServerWhenItIsThere() throws {
        let made = CheckWrite(key: item, property: "count", value: "984", makes: true)
        let written = try log([], cutOff: [made])
        #expect(written == [LoggedWrite(write: made, isCertain: false)])
        #expect(server(counts: [984]).lostWrites(written, client: 3, in: final).isEmpty)
        #expect(server(counts: []).lostWrites(written, client: 3, in: final) == ["client 3's \(item).count = 984 never reached the server (recorded as begun, not as committed: a kill cut its save off)"])
        // Gone at the end: the save may not have committed, and nothing need have reached the server.
        #expect(server(counts: []).lostWrites(written, client: 3, in: CheckState()).isEmpty)
        // A change cut off after it (the client restarted and killed again) may be what arrived.
        let changed = [LoggedWrite(write: made, isCertain: false), LoggedWrite(write: count("5"), isCertain: false)]
        #expect(server(counts: [5]).lostWrites(changed, client: 3, in: final).isEmpty)
        #expect(server(counts: [42]).lostWrites(changed, client: 3, in: final) == ["client 3's \(item).count = 5 never reached the server (recorded as begun, not as committed: a kill cut its save off)"])
    }

    @Test func aSaveRecordedAfterARestartIsCertainAgain() throws {
        let written = try log([[count("137")]], cutOff: [count("984")], then: [[count("5")]])
        #expect(written.last == LoggedWrite(write: count("5"), isCertain: true))
        #expect(server(counts: [137, 984]).lostWrites(written, client: 0, in: final) == ["client 0's \(item).count = 5 never reached the server"])
    }

    @Test func aCommittedRecordCutShortLeavesTheSaveUncertain() throws {
        let url = FileManager.default.temporaryDirectory.appending(path: "write-log-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: url) }
        let line = String(decoding: try JSONEncoder().encode([count("984")]), as: UTF8.self)
        try Data("?\(line)\n\(line.prefix(10))".utf8).write(to: url)
        #expect(try WriteLog.read(url) == [LoggedWrite(write: count("984"), isCertain: false)])
    }
}
