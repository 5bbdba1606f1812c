import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// The rules of the server the tests below run: alice alone changes prices, no trip is named
/// "Forbidden", trips named "Kept" are never deleted, and trips whose notes say "private" stay on
/// the server.
struct TripRules: SyncRules {
    func mayRead(_ model: SyncReadableModel) -> Bool {
        model.model != "Trip" || model.values["notes"]?.string != "private"
    }

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
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers)
struct SyncRulesTests {
    @Test func refusedChangesAreUndoneOnTheirDeviceAndReportedWhileTheRestSyncs() async throws {
        let server = try await RunningSyncServer.start("rules", rules: TripRules())
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
        // The store keeps the list of what was refused: the restarted app lists it again.
        #expect(await device.engine.refusedChanges == refused)
        #expect(try summary(other) == summary(device))

        // A change refused again, for the same model and reason, is listed once.
        for price in [300.0, 400.0] {
            let retry = device.context()
            try #require(try device.trip("T1", in: retry)).price = price
            try retry.save()
            await #expect(throws: SyncError.self) { try await device.engine.sync() }
        }
        let reasons = await device.engine.refusedChanges.map(\.reason)
        #expect(reasons.count == 3)
        #expect(reasons.filter { $0 == "only alice changes a trip's price" }.count == 1)
        #expect(reasons.last == "only alice changes a trip's price")
        #expect(try summary(device) == ["K1 Kept 1.0 -", "T1 Lisbon 100.0 -", "T3 Porto 80.0 -"])

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

    @Test func modelsTheRulesHideLeaveEveryDeviceAndStayOnTheServer() async throws {
        let server = try await RunningSyncServer.start("rules", rules: TripRules())
        let device = try SyncDevice(server: server)
        let other = try SyncDevice(server: server)
        let context = device.context()
        context.insert(Trip(code: "T1", name: "Lisbon", price: 1))
        let hidden = Trip(code: "T2", name: "Porto", price: 2)
        hidden.notes = "private"
        context.insert(hidden)
        try context.save()
        try await device.engine.sync()
        try await other.engine.sync()
        #expect(try device.trips().map(\.code) == ["T1"], "the push's answer took the hidden trip off the device that made it")
        #expect(try other.trips().map(\.code) == ["T1"])

        // A change that hides a model takes it off every device.
        let editing = device.context()
        try #require(try device.trip("T1", in: editing)).notes = "private"
        try editing.save()
        try await device.engine.sync()
        try await other.engine.sync()
        #expect(try device.trips().isEmpty)
        #expect(try other.trips().isEmpty)
        #expect(device.engine.status.lastError == nil, "hiding is no refusal")

        // The server keeps both: a server process without the rules, on the same database, serves them.
        let unruled = try await RunningSyncServer.start(sharing: server)
        let admin = try SyncDevice(server: unruled)
        try await admin.engine.sync()
        #expect(try admin.trips().map { "\($0.code) \($0.notes ?? "-")" } == ["T1 private", "T2 private"])

        // A change to a hidden model, from a device that holds it, is refused and taken back.
        let edit = admin.context()
        try #require(try admin.trip("T2", in: edit)).name = "Faro"
        try edit.save()
        let ruled = SyncEngine(container: admin.container, configuration: SyncConfiguration(serverURL: server.url, token: "token-a"))
        let error = await #expect(throws: SyncError.self) { try await ruled.sync() }
        #expect(error?.kind == .refused && error?.message.contains("may not read") == true, "\(String(describing: error))")
        #expect(try admin.trips().map(\.code) == ["T1"], "the answer took the hidden trip off the device")
        let fresh = try SyncDevice(server: unruled)
        try await fresh.engine.sync()
        #expect(try fresh.trips().map { "\($0.code) \($0.name)" } == ["T1 Lisbon", "T2 Porto"], "nothing of the refused change was written")
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
