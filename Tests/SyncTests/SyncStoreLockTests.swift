import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Engines on one store file synchronize one at a time, whether in one process or in several.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncStoreLockTests {
    @Test func anEngineWaitsWhileAnotherSynchronizesTheSameStore() async throws {
        let server = try await RunningSyncServer.start()
        let device = try SyncDevice(server: server)
        let other = try SyncDevice(server: server)
        let context = device.context()
        context.insert(Trip(code: "T1", name: "Lisbon"))
        try context.save()

        // What another process's engine holds while it synchronizes this store.
        let lockPath = device.storeURL.path + ".sync-lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        try #require(flock(descriptor, LOCK_EX) == 0)
        let synchronizing = Task { try await device.engine.sync() }
        try await Task.sleep(for: .milliseconds(300))
        try await other.engine.sync()
        #expect(try other.trips().isEmpty, "the engine pushed while another held the store's lock")

        close(descriptor)
        try await synchronizing.value
        try await other.engine.sync()
        #expect(try other.trips().map(\.code) == ["T1"])
    }

    @Test func twoEnginesStartedOnOneStoreSendEverySaveOnce() async throws {
        let server = try await RunningSyncServer.start()
        let device = try SyncDevice(server: server)
        let reader = try SyncDevice(server: server)
        let second = SyncEngine(container: device.container, configuration: SyncConfiguration(serverURL: server.url, token: "token-a"))
        device.engine.start()
        second.start()
        for number in 0..<60 {
            let context = device.context()
            context.insert(Trip(code: "S\(number)", name: "Saved while two engines run", price: Double(number)))
            if number > 0, let earlier = try device.trip("S\(number - 1)", in: context) { earlier.price += 1_000 }
            try context.save()
            try await Task.sleep(for: .milliseconds(5))
        }
        await device.engine.stop()
        await second.stop()
        try await device.engine.sync()
        try await reader.engine.sync()

        #expect(device.engine.status.pendingChangeCount == 0)
        let sent = try device.trips().map { "\($0.code) \($0.price)" }
        #expect(try reader.trips().map { "\($0.code) \($0.price)" } == sent)
        #expect(sent.count == 60)
    }
}
