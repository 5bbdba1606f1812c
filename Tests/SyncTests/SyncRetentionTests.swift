import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// A server that forgets old deletions: a device that was away longer downloads its user's rows
/// again, loses the models deleted meanwhile, and keeps what it made and changed offline; a device
/// that kept up notices nothing.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncRetentionTests {
    private func names(_ device: SyncDevice) throws -> [String] {
        try device.trips().map { "\($0.code) \($0.name)" }
    }

    /// With pages of one row, the download from the start is applied page by page, and the
    /// models it does not hold are deleted with its last.
    @Test(arguments: [2000, 1])
    func aDeviceBehindATrimDownloadsAgainAndKeepsItsUnsentChanges(pullPageSize: Int) async throws {
        let server = try await RunningSyncServer.start("syncretain")
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server, pullPageSize: pullPageSize)
        let making = a.context()
        for (code, name) in [("T2", "Braga"), ("T3", "Coimbra"), ("T4", "Evora")] { making.insert(Trip(code: code, name: name)) }
        let stop = Stop(place: "Quay", order: 1)
        making.insert(stop)
        stop.trip = try a.trip("T2", in: making)
        try making.save()
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try b.count(Stop.self) == 1)

        // The first device deletes T2 (its stop goes with it) and renames T3, and synchronizes.
        let editing = a.context()
        editing.delete(try #require(try a.trip("T2", in: editing)))
        try #require(try a.trip("T3", in: editing)).name = "Porto"
        try editing.save()
        try await a.engine.sync()

        // The second device, offline, renames T4 and T2, and makes T5.
        let offline = b.context()
        try #require(try b.trip("T4", in: offline)).name = "Faro"
        try #require(try b.trip("T2", in: offline)).name = "Guarda"
        offline.insert(Trip(code: "T5", name: "Lagos"))
        try offline.save()

        // The server forgets every deletion so far: the second device's cursor is before one.
        let trimmed = try await server.server.trimHistory(olderThan: .zero)
        #expect(trimmed.deletions == 2, "T2 and its stop")

        try await b.engine.sync()
        // T2 is gone (a deletion wins over an update), T3 as the first device left it, and the
        // offline rename and new trip kept and sent.
        let afterDownload = try names(b)
        #expect(afterDownload == ["T1 Lisbon", "T3 Porto", "T4 Faro", "T5 Lagos"])
        #expect(try b.count(Stop.self) == 0)
        #expect(b.engine.status.pendingChangeCount == 0 && b.engine.status.isUpToDate)

        try await a.engine.sync()
        #expect(try names(a) == ["T1 Lisbon", "T3 Porto", "T4 Faro", "T5 Lagos"])

        // Both keep going as before: an edit travels, and a restarted device agrees.
        let later = a.context()
        try #require(try a.trip("T1", in: later)).name = "Sintra"
        try later.save()
        try await a.engine.sync()
        try b.restart()
        try await b.engine.sync()
        #expect(try names(b) == ["T1 Sintra", "T3 Porto", "T4 Faro", "T5 Lagos"])
    }

    @Test func aTrimKeepsLiveRowsAndRecentDeletions() async throws {
        let server = try await RunningSyncServer.start("syncretain")
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server)
        let context = a.context()
        context.insert(Trip(code: "T2", name: "Braga"))
        try context.save()
        try await a.engine.sync()
        let deleting = a.context()
        deleting.delete(try #require(try a.trip("T2", in: deleting)))
        try deleting.save()
        try await a.engine.sync()

        // Deletions younger than the age are kept: the second device learns of T2's as usual.
        #expect(try await server.server.trimHistory(olderThan: .seconds(3600)).deletions == 0)
        try await b.engine.sync()
        #expect(try names(b) == ["T1 Lisbon"])

        // Once trimmed, a new device still receives every live row.
        #expect(try await server.server.trimHistory(olderThan: .zero).deletions == 1)
        let fresh = try SyncDevice(server: server)
        try await fresh.engine.sync()
        #expect(try names(fresh) == ["T1 Lisbon"])
        // And a device that had seen the deletion before the trim pulls on without starting over.
        let edit = a.context()
        try #require(try a.trip("T1", in: edit)).name = "Sintra"
        try edit.save()
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try names(b) == ["T1 Sintra"])
    }
}
