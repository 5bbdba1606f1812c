import Foundation
import OpenSwiftData
@testable import OpenSwiftDataSync
import Testing

/// A pull applied a page at a time: a relationship to a model a later page brings is set when it
/// comes, a pull stopped between pages goes on from the last page applied, and a relationship whose
/// value changed meanwhile keeps the newer value.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncPagedPullTests {
    /// Trip `T1` with the stops `S1` and `S2` and the tags `G1` and `G2`, saved so that the server
    /// orders them: the stops, `G2`, `T1`, `G1`. The stops name a trip that comes after them, and
    /// whichever side of the trips-and-tags relationship is sent, one of its models comes after the other.
    private func makeTripWhoseRowsComeOutOfOrder(on device: SyncDevice) async throws {
        let context = device.context()
        let trip = Trip(code: "T1", name: "Lisbon")
        let tags = [Tag(label: "G1"), Tag(label: "G2")]
        context.insert(trip)
        for tag in tags { context.insert(tag) }
        for (order, place) in ["S1", "S2"].enumerated() {
            let stop = Stop(place: place, order: order)
            context.insert(stop)
            stop.trip = trip
        }
        trip.tags = tags
        try context.save()
        try await device.engine.sync()
        let edits: [() -> Void] = [{ tags[1].label = "G2!" }, { trip.name = "Porto" }, { tags[0].label = "G1!" }]
        for edit in edits {
            edit()
            try context.save()
            try await device.engine.sync()
        }
    }

    /// What a device holds of the trip: its name, stops and tags, and whether they name it back.
    private func tripAsHeld(on device: SyncDevice) throws -> String {
        let context = device.context()
        let trip = try #require(try device.trip("T1", in: context))
        let stops = trip.stops.map(\.place).sorted().joined(separator: ",")
        let tags = trip.tags.map(\.label).sorted().joined(separator: ",")
        let stopsNameTheTrip = try context.fetch(FetchDescriptor<Stop>()).allSatisfy { $0.trip?.code == "T1" }
        let tagsNameTheTrip = try context.fetch(FetchDescriptor<Tag>()).allSatisfy { $0.trips.map(\.code) == ["T1"] }
        return "\(trip.name) stops \(stops) tags \(tags) \(stopsNameTheTrip && tagsNameTheTrip ? "linked" : "unlinked")"
    }

    private static let expected = "Porto stops S1,S2 tags G1!,G2! linked"

    /// Applies the first page of one row of a new device's first pull as its engine would, and
    /// stops there: the device holds one stop, whose trip is still to come. Returns the stop's place.
    private func applyFirstPageAndStop(on device: SyncDevice, server: RunningSyncServer) async throws -> String {
        let store = try device.container.replicationStore(for: "test")
        var state = try SyncState.load(from: store).state
        try store.records.writeCompanionRecords(state.records + [SyncState.schemaRecord(SyncSchema(StoredSchema(device.container.schema)).digest)])
        let page = try await SyncTransport(configuration: SyncConfiguration(serverURL: server.url, token: "token-a"))
            .changes(client: state.client, after: 0, limit: 1)
        state.cursor = page.cursor
        let entities = Dictionary(uniqueKeysWithValues: device.container.replicatedEntities.map { ($0.name, $0) })
        let author = SyncConfiguration(serverURL: server.url, token: "token-a").author
        let outbox = Outbox(store: store, author: author, entities: entities)
        let context = ModelContext(device.container)
        context.author = author
        context.appliesDeleteRules = false
        try RemoteApplier(store: store, entities: entities, context: context)
            .apply(page.rows, pending: try outbox.pendingRows(after: 0), outbox: outbox, state: state)
        let stops = try device.context().fetch(FetchDescriptor<Stop>())
        #expect(stops.map { $0.trip?.code ?? "none" } == ["none"])
        #expect(try DanglingReferences.load(from: store).references.count == 1)
        return try #require(stops.first).place
    }

    @Test(arguments: [1, 2, 3])
    func aRelationshipToAModelOfALaterPageIsSetWhenItComes(pullPageSize: Int) async throws {
        let server = try await RunningSyncServer.start("syncpaged")
        let a = try SyncDevice(server: server)
        try await makeTripWhoseRowsComeOutOfOrder(on: a)
        #expect(try tripAsHeld(on: a) == Self.expected)

        let b = try SyncDevice(server: server, pullPageSize: pullPageSize)
        try await b.engine.sync()
        #expect(try tripAsHeld(on: b) == Self.expected)
        #expect(b.engine.status.isUpToDate && b.engine.status.pendingChangeCount == 0)
        // Nothing waits any longer, and nothing of the pull is sent back.
        #expect(try DanglingReferences.load(from: try b.container.replicationStore(for: "test")).isEmpty)
        try b.restart()
        #expect(try tripAsHeld(on: b) == Self.expected)
        try await b.engine.sync()
        #expect(b.engine.status.pendingChangeCount == 0)
        try await a.engine.sync()
        #expect(try tripAsHeld(on: a) == Self.expected)
    }

    @Test func aPullStoppedBetweenPagesGoesOnFromTheLastPageApplied() async throws {
        let server = try await RunningSyncServer.start("syncpaged")
        let a = try SyncDevice(server: server)
        try await makeTripWhoseRowsComeOutOfOrder(on: a)
        let b = try SyncDevice(server: server, pullPageSize: 1)
        _ = try await applyFirstPageAndStop(on: b, server: server)

        // Restarted, the device pulls the rest, and the stop finds its trip.
        try b.restart()
        try await b.engine.sync()
        #expect(try tripAsHeld(on: b) == Self.expected)
        #expect(try DanglingReferences.load(from: try b.container.replicationStore(for: "test")).isEmpty)
    }

    @Test func aRelationshipChangedBeforeItsModelComesKeepsTheChange() async throws {
        let server = try await RunningSyncServer.start("syncpaged")
        let a = try SyncDevice(server: server)
        try await makeTripWhoseRowsComeOutOfOrder(on: a)
        let b = try SyncDevice(server: server, pullPageSize: 1)
        let moved = try await applyFirstPageAndStop(on: b, server: server)

        // Before its trip comes, the stop is moved to a trip of the device's own, and the change
        // is sent before the rest is pulled.
        let editing = b.context()
        let own = Trip(code: "T9", name: "Faro")
        editing.insert(own)
        try #require(try editing.fetch(FetchDescriptor<Stop>()).first).trip = own
        try editing.save()
        try await b.engine.sync()
        try await a.engine.sync()

        let expected = ["S1", "S2"].map { "\($0) \($0 == moved ? "T9" : "T1")" }
        for device in [a, b] {
            let stops = try device.context().fetch(FetchDescriptor<Stop>(sortBy: [SortDescriptor(\.place)]))
            #expect(stops.map { "\($0.place) \($0.trip?.code ?? "none")" } == expected)
        }
    }

    @Test func aPageOfTheDevicesOwnChangesAloneDoesNotEndThePull() async throws {
        let server = try await RunningSyncServer.start("syncpaged")
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server, pullPageSize: 1)
        // The second device's two new trips are the next rows after its cursor: pages of its own
        // changes, which reach it with no row.
        let making = b.context()
        making.insert(Trip(code: "T2", name: "Braga"))
        making.insert(Trip(code: "T3", name: "Coimbra"))
        try making.save()
        try await b.engine.sync()
        // A change of the first device's comes after them.
        let editing = a.context()
        try #require(try a.trip("T1", in: editing)).name = "Sintra"
        try editing.save()
        try await a.engine.sync()

        try await b.engine.sync()
        #expect(try b.trips().map { "\($0.code) \($0.name)" } == ["T1 Sintra", "T2 Braga", "T3 Coimbra"])
        #expect(b.engine.status.isUpToDate)
    }
}
