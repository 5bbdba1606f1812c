import Foundation
import OpenSwiftData
@testable import OpenSwiftDataSync
import Testing

/// A local save that commits while the engine applies pulled rows is never overwritten by them:
/// the apply reads the pending local changes, and its save checks, under the store's write lock,
/// that no local save came after that read; if one did, nothing is written and the apply starts
/// again with the pending changes read anew.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers)
struct SyncApplyRaceTests {
    @Test func aLocalSaveBetweenReadingPendingChangesAndApplyingIsKept() async throws {
        let server = try await RunningSyncServer.start()
        let device = try SyncDevice(server: server)
        let context = device.context()
        context.insert(Trip(code: "RACE", name: "Saved"))
        try context.save()
        try await device.engine.sync()

        let store = try device.container.replicationStore(for: "SyncApplyRaceTests")
        let entities = Dictionary(device.container.replicatedEntities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let outbox = Outbox(store: store, author: SyncConfiguration(serverURL: server.url, token: "token-a").author, entities: entities)
        let state = try SyncState.load(from: store).state
        let trip = try #require(try device.trip("RACE", in: context))
        let key = try #require(trip.persistentModelID.storeKey)
        let id = try #require(try SyncState.id(ofEntity: "Trip", key: key, in: store))
        // The engine reads what is pending: nothing.
        let pending = try outbox.pendingRows(after: state.pushedThrough)
        #expect(pending.changed.isEmpty && pending.inserted.isEmpty && pending.deleted.isEmpty, "nothing is pending")

        // The app saves a new name before the engine's apply saves.
        trip.name = "Renamed here"
        try context.save()

        // A pulled row with another device's name for the trip.
        let pulled = SyncRow(
            entity: "Trip", id: id, deleted: false, values: ["name": .value(.text("Renamed elsewhere"))],
            clocks: ["name": SyncClock(time: 1, counter: 0, client: "elsewhere")], version: 1)
        let applying = ModelContext(device.container)
        applying.author = outbox.author
        #expect(throws: LocalSaveDuringApply.self) {
            try RemoteApplier(store: store, entities: entities, context: applying).apply([pulled], pending: pending, outbox: outbox, state: state)
        }
        #expect(try device.trip("RACE", in: device.context())?.name == "Renamed here", "the local save is not overwritten")

        // Read anew, the pending changes keep the local name, which the server then decides about.
        let again = try outbox.pendingRows(after: state.pushedThrough)
        #expect(again.changed.values.contains { $0.contains("name") })
        let retry = ModelContext(device.container)
        retry.author = outbox.author
        try RemoteApplier(store: store, entities: entities, context: retry).apply([pulled], pending: again, outbox: outbox, state: state)
        #expect(try device.trip("RACE", in: device.context())?.name == "Renamed here")
        #expect(try outbox.pendingChangeCount(after: state.pushedThrough) == 1, "the local change is still to be sent")
    }
}
