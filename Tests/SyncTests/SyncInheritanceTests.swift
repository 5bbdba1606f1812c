import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// Models of a class hierarchy and bytes kept beside the store, synchronized between two devices:
/// each row arrives as its own class with its inherited and own values, edits and deletions of a
/// subclass travel both ways, and a relationship to a row of the hierarchy finds it.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncInheritanceTests {
    /// Bytes large enough that the store keeps them in a file beside it.
    static func manual(_ seed: UInt8, count: Int = 200_000) -> Data {
        Data((0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test func subclassesAndExternalBytesTravelBothWays() async throws {
        let server = try await RunningSyncServer.start("syncinherit")
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server, token: "token-a")

        let context = a.context()
        let trip = Trip(code: "T1", name: "Porto")
        let bus = Bus(plate: "BUS-1", seats: 40)
        bus.manual = Self.manual(1)
        bus.trip = trip
        let van = Vehicle(plate: "VAN-1")
        van.manual = Data([9, 8, 7])
        context.insert(trip)
        context.insert(bus)
        context.insert(van)
        try context.save()
        try await a.engine.sync()
        try await b.engine.sync()

        // Each row arrives as its class: a fetch of the superclass finds both, of the subclass one.
        let other = b.context()
        let vehicles = try other.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.plate)]))
        #expect(vehicles.map(\.plate) == ["BUS-1", "VAN-1"])
        let received = try #require(try other.fetch(FetchDescriptor<Bus>()).first)
        #expect(received.seats == 40 && received.plate == "BUS-1")
        #expect(received.manual == Self.manual(1))
        #expect(received.trip?.code == "T1")
        #expect(vehicles.last?.manual == Data([9, 8, 7]) && !(vehicles.last is Bus))

        // An edit of inherited and own properties of the subclass, made on the second device.
        received.seats = 52
        received.plate = "BUS-1B"
        received.manual = Self.manual(2, count: 150_000)
        try other.save()
        try await b.engine.sync()
        try await a.engine.sync()
        let edited = try #require(try a.context().fetch(FetchDescriptor<Bus>()).first)
        #expect(edited.seats == 52 && edited.plate == "BUS-1B")
        #expect(edited.manual == Self.manual(2, count: 150_000))

        // A deletion of the subclass's row leaves the other row of the hierarchy.
        let deleting = a.context()
        try deleting.delete(model: Bus.self)
        try deleting.save()
        try await a.engine.sync()
        try await b.engine.sync()
        try b.restart()
        #expect(try b.count(Bus.self) == 0)
        #expect(try b.context().fetch(FetchDescriptor<Vehicle>()).map(\.plate) == ["VAN-1"])
        #expect(try b.count(Trip.self) == 1)
        try await b.engine.refreshStatus()
        #expect(b.engine.status.pendingChangeCount == 0)
    }
}
