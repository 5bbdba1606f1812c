import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// Models with `.unique` attributes made on several devices: one model in the end, everywhere.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncUniqueTests {
    @Test func theSameUniqueKeyMadeOfflineOnTwoDevicesEndsAsOneModel() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let contextA = a.context()
        contextA.insert(Trip(code: "X", name: "From A", price: 1))
        try contextA.save()
        try await Task.sleep(for: .milliseconds(20))
        let contextB = b.context()
        let tripB = Trip(code: "X", name: "From B", price: 2)
        contextB.insert(tripB)
        let stop = Stop(place: "Made on B", order: 1)
        contextB.insert(stop)
        stop.trip = tripB
        try contextB.save()

        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()

        for device in [a, b] {
            let trips = try device.trips()
            #expect(trips.count == 1)
            // B made its model later: each of its values is the later one.
            #expect(trips.first?.name == "From B")
            #expect(trips.first?.price == 2)
            #expect(trips.first?.stops.map(\.place) == ["Made on B"])
        }
        // Later edits of the merged model reach the other device through the one identifier.
        let context = b.context()
        try #require(try b.trip("X", in: context)).price = 3
        try context.save()
        try await b.engine.sync()
        try await a.engine.sync()
        #expect(try a.trips().map(\.price) == [3])
        #expect(try a.count(Trip.self) == 1)
    }

    @Test func deletingAndReinsertingAUniqueKeySyncsAsThat() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        context.insert(Trip(code: "X", name: "First"))
        try context.save()
        try await a.engine.sync()
        try await b.engine.sync()

        context.delete(try #require(try a.trip("X", in: context)))
        try context.save()
        context.insert(Trip(code: "X", name: "Second"))
        try context.save()
        try await a.engine.sync()
        try await b.engine.sync()

        for device in [a, b] {
            #expect(try device.trips().map(\.name) == ["Second"])
        }

        // In one save too.
        let again = a.context()
        again.delete(try #require(try a.trip("X", in: again)))
        again.insert(Trip(code: "X", name: "Third"))
        try again.save()
        try await a.engine.sync()
        try await b.engine.sync()
        for device in [a, b] {
            #expect(try device.trips().map(\.name) == ["Third"])
        }
    }
}
