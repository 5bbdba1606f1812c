import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// The rules of the server the tests below run: alice alone changes prices, no trip is named
/// "Forbidden", and trips named "Kept" are never deleted.
struct TripRules: SyncRules {
    func check(_ change: SyncProposedChange) -> SyncRuleDecision {
        guard change.model == "Trip" else { return .allow }
        switch change.kind {
        case .update where change.changes("price") && change.user != "alice":
            return .refuse("only alice changes a trip's price")
        case .insert where change.values["name"]?.string == "Forbidden":
            return .refuse("no trip is named Forbidden")
        case .delete where change.current["name"]?.string == "Kept":
            return .refuse("trips named Kept stay")
        default:
            return .allow
        }
    }
}

/// The server's rules refuse changes; the refused changes are undone on the device that made them
/// and reported, and the push's other changes are applied.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage))
struct SyncRulesTests {
    @Test func refusedChangesAreUndoneOnTheirDeviceAndReportedWhileTheRestSyncs() async throws {
        let server = try await RunningSyncServer.start("rules", rules: TripRules())
        defer { Task { await server.stop() } }
        let device = try SyncDevice(server: server, token: "token-b")
        let other = try SyncDevice(server: server, token: "token-b")
        let context = device.context()
        context.insert(Trip(code: "T1", name: "Lisbon", price: 100))
        context.insert(Trip(code: "K1", name: "Kept", price: 1))
        try context.save()
        try await device.engine.sync()

        // One push: a price change (refused, with the notes changed beside it), a forbidden new
        // trip with a stop on it, an allowed new trip, and a deletion the rules refuse.
        let editing = device.context()
        let lisbon = try #require(try device.trip("T1", in: editing))
        lisbon.price = 200
        lisbon.notes = "cheaper by train"
        let forbidden = Trip(code: "T2", name: "Forbidden", price: 5)
        editing.insert(forbidden)
        let stop = Stop(place: "Gate", order: 1)
        editing.insert(stop)
        stop.trip = forbidden
        editing.insert(Trip(code: "T3", name: "Porto", price: 80))
        editing.delete(try #require(try device.trip("K1", in: editing)))
        try editing.save()

        let error = await #expect(throws: SyncError.self) { try await device.engine.sync() }
        #expect(error?.kind == .refused)
        let message = error?.message ?? ""
        #expect(message.contains("only alice changes a trip's price") && message.contains("no trip is named Forbidden") && message.contains("trips named Kept stay"), "\(message)")
        #expect((device.engine.status.lastError as? SyncError)?.kind == .refused)
        #expect(device.engine.status.pendingChangeCount == 0, "refused changes are not pending: they were answered")
        let refused = await device.engine.refusedChanges
        #expect(refused.map(\.entity) == ["Trip", "Trip", "Trip"])
        #expect(Set(refused.map(\.reason)).count == 3)

        // The device holds what the server holds: the old price and notes (the change is refused
        // whole), no forbidden trip, the stop without it, the kept trip back.
        #expect(try summary(device) == ["K1 Kept 1.0 -", "T1 Lisbon 100.0 -", "T3 Porto 80.0 -"])
        #expect(try device.context().fetch(FetchDescriptor<Stop>()).map { "\($0.place) \($0.trip?.code ?? "-")" } == ["Gate -"])

        try await other.engine.sync()
        #expect(try summary(other) == summary(device))
        #expect(try other.context().fetch(FetchDescriptor<Stop>()).map { "\($0.place) \($0.trip?.code ?? "-")" } == ["Gate -"])

        // Nothing is sent again: a later synchronization succeeds and clears the error, also
        // after the app restarts.
        try await device.engine.sync()
        #expect(device.engine.status.lastError == nil)
        try device.restart()
        try await device.engine.sync()
        try await other.engine.sync()
        #expect(try summary(device) == ["K1 Kept 1.0 -", "T1 Lisbon 100.0 -", "T3 Porto 80.0 -"])
        #expect(try summary(other) == summary(device))

        // The kept trip, made again on the device, is the server's model: its edits sync.
        let again = device.context()
        try #require(try device.trip("K1", in: again)).notes = "still here"
        try again.save()
        try await device.engine.sync()
        try await other.engine.sync()
        #expect(try other.trips().first { $0.code == "K1" }?.notes == "still here")
    }

    @Test func whatTheRulesAllowSyncsAsWithoutThem() async throws {
        let server = try await RunningSyncServer.start("rules", rules: TripRules())
        defer { Task { await server.stop() } }
        let (device, other) = try await SyncDevice.pairHoldingATrip(on: server, price: 10)
        let context = device.context()
        try #require(try device.trip("T1", in: context)).price = 12
        try context.save()
        try await device.engine.sync()
        try await other.engine.sync()
        #expect(try other.trips().map(\.price) == [12], "alice changes prices")
        #expect(await device.engine.refusedChanges.isEmpty)
        #expect(device.engine.status.lastError == nil)
    }

    @Test func rulesSeeWhatTheChangeDoes() {
        let update = SyncProposedChange(
            user: "bob", model: "Trip", id: "x", kind: .update, values: ["price": .double(3), "name": .string("a")],
            current: ["price": .double(2), "name": .string("a")])
        #expect(update.changes("price") && !update.changes("name") && !update.changes("notes"))
        #expect(TripRules().check(update) == .refuse("only alice changes a trip's price"))
        let insert = SyncProposedChange(user: "bob", model: "Trip", id: "y", kind: .insert, values: ["name": .string("a")], current: [:])
        #expect(insert.changes("name"))
        #expect(TripRules().check(insert) == .allow)
    }

    private func summary(_ device: SyncDevice) throws -> [String] {
        try device.trips().map { "\($0.code) \($0.name) \($0.price) \($0.notes ?? "-")" }
    }
}
