import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// Saves larger than one push request may carry — more changes than the server takes in one, or
/// more bytes — reach the server in parts and arrive whole.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .serialized)
struct SyncLargeBatchTests {
    /// One save of more models than the server takes in one push (10,000): the batch goes in parts,
    /// and every model arrives, with nothing left pending.
    @Test func oneSaveOfMoreModelsThanAPushTakesArrivesWhole() async throws {
        let server = try await RunningSyncServer.start()
        defer { Task { await server.stop() } }
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        for number in 0..<10_050 { context.insert(Tag(label: "tag \(number)")) }
        try context.save()

        try await a.engine.sync()
        #expect(a.engine.status.pendingChangeCount == 0)
        #expect(a.engine.status.lastError == nil)
        try await b.engine.sync()
        let labels = try b.context().fetch(FetchDescriptor<Tag>()).map(\.label)
        #expect(labels.count == 10_050)
        #expect(Set(labels) == Set((0..<10_050).map { "tag \($0)" }))
    }

    /// A save whose values are larger than one request may carry goes in parts by size; a model
    /// whose change alone is larger than the server takes fails the synchronization with an error
    /// naming it, and stays pending.
    @Test func aSaveLargerThanARequestArrivesInPartsAndAModelTooLargeIsNamed() async throws {
        let server = try await RunningSyncServer.start(maximumRequestSize: 256 << 10)
        defer { Task { await server.stop() } }
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        for number in 0..<20 {
            let trip = Trip(code: "T\(number)", name: "Trip \(number)")
            trip.photo = Data(repeating: UInt8(number), count: 40 << 10)
            context.insert(trip)
        }
        try context.save()
        try await a.engine.sync()
        try await b.engine.sync()
        let received = try b.trips()
        #expect(received.count == 20)
        #expect(received.allSatisfy { $0.photo == Data(repeating: UInt8($0.code.dropFirst()) ?? 0, count: 40 << 10) })

        let huge = Trip(code: "HUGE", name: "Too large")
        huge.photo = Data(repeating: 7, count: 200 << 10)
        context.insert(huge)
        try context.save()
        await #expect {
            try await a.engine.sync()
        } throws: { error in
            let message = "\(error)"
            return message.contains("Trip") && message.contains("\(256 << 10) bytes")
        }
        #expect(a.engine.status.pendingChangeCount == 1)
    }
}
