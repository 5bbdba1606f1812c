import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// Several server processes behind one database: a push through one is announced by PostgreSQL to
/// the others, which wake their waiting pulls, and devices on different processes converge.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncServerProcessesTests {
    @Test func aPushThroughOneProcessIsAnnouncedByTheOthers() async throws {
        let first = try await RunningSyncServer.start("syncrelay")
        let second = try await RunningSyncServer.start(sharing: first)
        let a = try SyncDevice(server: first)
        let b = try SyncDevice(server: second)

        // The second process hears of the first one's pushes (its listener may still be starting:
        // pushes go on until one is heard, for at most about thirty seconds).
        let before = await second.server.announcements(of: "alice")
        var heard = false
        for round in 0 ..< 150 where !heard {
            let context = a.context()
            context.insert(Trip(code: "T\(round)", name: "Trip \(round)"))
            try context.save()
            try await a.engine.sync()
            heard = await second.server.announcements(of: "alice") > before
            if !heard { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(heard, "a push through the first process was never announced in the second")
        // Only to the user whose rows changed.
        #expect(await second.server.announcements(of: "bob") == 0)

        // Devices on the two processes converge, both ways.
        try await b.engine.sync()
        #expect(try b.trips().map(\.code) == a.trips().map(\.code))
        let editing = b.context()
        try #require(try b.trips().first.flatMap { trip in try b.trip(trip.code, in: editing) }).name = "Renamed"
        try editing.save()
        try await b.engine.sync()
        try await a.engine.sync()
        #expect(try a.trips().first?.name == "Renamed")
    }
}
