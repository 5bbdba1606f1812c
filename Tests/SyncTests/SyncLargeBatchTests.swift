import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// Saves larger than one push request may carry — more changes than the server takes in one, or
/// more bytes — reach the server in parts and arrive whole.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncLargeBatchTests {
    /// One save of more models than the server takes in one push (10,000): the batch goes in parts,
    /// and every model arrives, with nothing left pending.
    @Test func oneSaveOfMoreModelsThanAPushTakesArrivesWhole() async throws {
        let server = try await RunningSyncServer.start()
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

    /// A download of large values comes in pages of about the server's page size in bytes, each
    /// ending at the first row that reaches it, whatever the page's row count: every model
    /// arrives, in answers of a few rows.
    @Test func pagesOfLargeValuesEndAtTheServersPageSize() async throws {
        let server = try await RunningSyncServer.start(pageBytes: 100 << 10)
        let a = try SyncDevice(server: server)
        let context = a.context()
        try saveTripsWithPhotos(in: context)
        try await a.engine.sync()

        // 40 KiB of bytes is about 54 KiB of Base64: two rows reach 100 KiB.
        var request = URLRequest(url: try #require(URL(string: server.url.absoluteString + "/v1/changes?after=0&limit=2000")))
        request.setValue("Bearer token-a", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        let page = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((page["rows"] as? [Any])?.count == 2)
        #expect(page["upToDate"] as? Bool == false)

        let b = try SyncDevice(server: server)
        try await b.engine.sync()
        let received = try b.trips()
        #expect(holdsTheTripsWithPhotos(received))
        #expect(b.engine.status.isUpToDate)
    }

    /// A save whose values are larger than one request may carry goes in parts by size; a model
    /// whose change alone is larger than the server takes fails the synchronization with an error
    /// naming it, and stays pending.
    @Test func aSaveLargerThanARequestArrivesInPartsAndAModelTooLargeIsNamed() async throws {
        let server = try await RunningSyncServer.start(maximumRequestSize: 256 << 10)
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        try saveTripsWithPhotos(in: context)
        try await a.engine.sync()
        try await b.engine.sync()
        let received = try b.trips()
        #expect(holdsTheTripsWithPhotos(received))

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

    /// A single save larger than the server applies at once (sixteen requests' worth) is refused
    /// whole with an error saying so, and stays pending: nothing of it is written.
    @Test func aSaveLargerThanTheServerAppliesAtOnceIsRefusedAndStaysPending() async throws {
        let server = try await RunningSyncServer.start(maximumRequestSize: 256 << 10)
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        // 80 photos of 54 KiB in Base64: more than 4 MiB.
        try saveTripsWithPhotos(in: a.context(), count: 80)
        await #expect {
            try await a.engine.sync()
        } throws: { error in
            "\(error)".contains("the most the server applies at once")
        }
        #expect(a.engine.status.pendingChangeCount == 80)
        try await b.engine.sync()
        #expect(try b.trips().isEmpty)
    }

    /// Saves trips, each with a photo of 40 KiB (54 KiB in Base64).
    private func saveTripsWithPhotos(in context: ModelContext, count: Int = 20) throws {
        for number in 0..<count {
            let trip = Trip(code: "T\(number)", name: "Trip \(number)")
            trip.photo = Data(repeating: UInt8(number), count: 40 << 10)
            context.insert(trip)
        }
        try context.save()
    }

    /// Whether `trips` are those ``saveTripsWithPhotos(in:)`` saved, each photo whole.
    private func holdsTheTripsWithPhotos(_ trips: [Trip]) -> Bool {
        trips.count == 20 && trips.allSatisfy { $0.photo == Data(repeating: UInt8($0.code.dropFirst()) ?? 0, count: 40 << 10) }
    }
}
