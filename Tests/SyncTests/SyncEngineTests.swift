import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// Two and three devices synchronizing through a server in this process, each on a store file of
/// its own: what arrives, how conflicts end, what status says.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncEngineTests {
    @Test func insertsArriveWithEveryValueExact() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        let trip = Trip(code: "T1", name: "Lisbon", price: -0.0, start: Date(timeIntervalSinceReferenceDate: 123_456.789_012_345_6))
        trip.notes = "ünïcødé ✈︎"
        trip.cost = Decimal(string: "12345.678901234567890123")!
        trip.photo = Data([0, 1, 2, 255])
        trip.budget = Budget(currency: "EUR", limits: [1, 2, 3])
        let precise = Trip(code: "T2", name: "Pi", price: .pi)
        // Numbers JSON has none for: sent by their bits.
        let unbounded = Trip(code: "T3", name: "Unbounded", price: -.infinity, start: Date(timeIntervalSinceReferenceDate: .infinity))
        context.insert(trip)
        context.insert(precise)
        context.insert(unbounded)
        try context.save()

        try await a.engine.sync()
        try await b.engine.sync()

        let received = try b.trips()
        #expect(received.map(\.code) == ["T1", "T2", "T3"])
        #expect(received.last?.price == -.infinity)
        #expect(received.last?.start == Date(timeIntervalSinceReferenceDate: .infinity))
        let first = try #require(received.first)
        #expect(first.name == "Lisbon")
        #expect(first.price.bitPattern == (-0.0).bitPattern)
        #expect(first.start == trip.start)
        #expect(first.notes == "ünïcødé ✈︎")
        #expect(first.cost == trip.cost)
        #expect(first.token == trip.token)
        #expect(first.photo == Data([0, 1, 2, 255]))
        #expect(first.budget == Budget(currency: "EUR", limits: [1, 2, 3]))
        #expect(received[1].price.bitPattern == Double.pi.bitPattern)
    }

    @Test func offlineEditsOfDifferentPropertiesBothSurvive() async throws {
        let server = try await RunningSyncServer.start()
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server, price: 100)

        let contextA = a.context()
        try #require(try a.trip("T1", in: contextA)).name = "Porto"
        try contextA.save()
        let contextB = b.context()
        try #require(try b.trip("T1", in: contextB)).price = 250
        try contextB.save()

        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()

        for device in [a, b] {
            let trip = try #require(try device.trips().first)
            #expect(trip.name == "Porto")
            #expect(trip.price == 250)
        }
    }

    @Test func theLaterEditOfOnePropertyWinsWhicheverSyncsFirst() async throws {
        let server = try await RunningSyncServer.start()
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server)

        let contextA = a.context()
        try #require(try a.trip("T1", in: contextA)).name = "Earlier"
        try contextA.save()
        // Clocks are read in milliseconds: the second edit is made in a later one.
        try await Task.sleep(for: .milliseconds(20))
        let contextB = b.context()
        try #require(try b.trip("T1", in: contextB)).name = "Later"
        try contextB.save()

        try await b.engine.sync()
        try await a.engine.sync()
        try await b.engine.sync()

        #expect(try a.trips().first?.name == "Later")
        #expect(try b.trips().first?.name == "Later")
        let conflicts = await a.engine.resolvedConflicts
        #expect(conflicts.map(\.property) == ["name"])
        #expect(conflicts.first.map { $0.winning > $0.losing } == true)
        // The store keeps the list: the restarted app lists it again.
        try a.restart()
        try await a.engine.sync()
        #expect(await a.engine.resolvedConflicts == conflicts)
    }

    @Test func aDeletionWinsOverAConcurrentEditAndCascades() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        let trip = Trip(code: "T1", name: "Lisbon")
        context.insert(trip)
        for order in 0..<3 {
            let stop = Stop(place: "Stop \(order)", order: order)
            context.insert(stop)
            stop.trip = trip
        }
        try context.save()
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try b.count(Stop.self) == 3)
        #expect(try b.trips().first?.stops.count == 3)

        // B edits after A deletes: the deletion still wins.
        let contextA = a.context()
        contextA.delete(try #require(try a.trip("T1", in: contextA)))
        try contextA.save()
        #expect(try a.count(Stop.self) == 0)
        let contextB = b.context()
        try #require(try b.trip("T1", in: contextB)).name = "Edited after"
        try contextB.save()

        try await b.engine.sync()
        try await a.engine.sync()
        try await b.engine.sync()

        for device in [a, b] {
            #expect(try device.count(Trip.self) == 0)
            #expect(try device.count(Stop.self) == 0)
        }
    }

    @Test func relationshipsOfEveryKindArriveNavigable() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        let lisbon = Trip(code: "T1", name: "Lisbon")
        let porto = Trip(code: "T2", name: "Porto")
        let food = Tag(label: "food")
        let sea = Tag(label: "sea")
        for model in [lisbon, porto] { context.insert(model) }
        for tag in [food, sea] { context.insert(tag) }
        lisbon.tags = [food, sea]
        porto.tags = [sea]
        let stop = Stop(place: "Belém", order: 1)
        context.insert(stop)
        stop.trip = lisbon
        try context.save()

        try await a.engine.sync()
        try await b.engine.sync()

        let trips = try b.trips()
        #expect(trips.map(\.code) == ["T1", "T2"])
        #expect(Set(trips[0].tags.map(\.label)) == ["food", "sea"])
        #expect(trips[1].tags.map(\.label) == ["sea"])
        #expect(trips[0].stops.map(\.place) == ["Belém"])
        let tags = try b.context().fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.label)]))
        #expect(tags.map { $0.trips.count } == [1, 2])

        // Moving a stop to another trip on B arrives on A.
        let contextB = b.context()
        let movedStop = try #require(try contextB.fetch(FetchDescriptor<Stop>()).first)
        movedStop.trip = try b.trip("T2", in: contextB)
        try contextB.save()
        try await b.engine.sync()
        try await a.engine.sync()
        #expect(try a.trip("T2", in: a.context())?.stops.map(\.place) == ["Belém"])
        #expect(try a.trip("T1", in: a.context())?.stops.isEmpty == true)
    }

    @Test func statusCountsPendingChangesAndReportsBeingUpToDate() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        #expect(a.engine.status.lastSyncDate == nil)
        #expect(a.engine.status.isUpToDate == false)
        let context = a.context()
        for index in 0..<3 { context.insert(Trip(code: "T\(index)", name: "Trip \(index)")) }
        try context.save()
        #expect(try await pendingCount(a.engine) == 3)

        try await a.engine.sync()
        #expect(a.engine.status.pendingChangeCount == 0)
        #expect(a.engine.status.isUpToDate)
        #expect(a.engine.status.lastSyncDate != nil)
        #expect(a.engine.status.lastError == nil)

        try #require(try a.trip("T0", in: context)).name = "Changed"
        try context.save()
        #expect(try await pendingCount(a.engine) == 1)
    }

    @Test func aWrongTokenIsRefusedAndNothingMoves() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let context = a.context()
        context.insert(Trip(code: "T1", name: "Lisbon"))
        try context.save()
        try await a.engine.sync()

        let intruder = try SyncDevice(server: server, token: "wrong")
        let intruderContext = intruder.context()
        intruderContext.insert(Trip(code: "X", name: "Intruder"))
        try intruderContext.save()
        await #expect(throws: SyncError.self) { try await intruder.engine.sync() }
        let error = try #require(intruder.engine.status.lastError as? SyncError)
        #expect(error.kind == .unauthorized)
        #expect(intruder.engine.status.pendingChangeCount == 1)
        #expect(try intruder.trips().map(\.code) == ["X"])

        // Nothing of the intruder reached the server.
        try await a.engine.sync()
        #expect(try a.trips().map(\.code) == ["T1"])
    }

    @Test func usersSeeOnlyTheirOwnRows() async throws {
        let server = try await RunningSyncServer.start()
        let alice = try SyncDevice(server: server, token: "token-a")
        let bob = try SyncDevice(server: server, token: "token-b")
        let aliceContext = alice.context()
        aliceContext.insert(Trip(code: "A", name: "Alice's"))
        try aliceContext.save()
        let bobContext = bob.context()
        bobContext.insert(Trip(code: "B", name: "Bob's"))
        try bobContext.save()
        try await alice.engine.sync()
        try await bob.engine.sync()
        try await alice.engine.sync()
        #expect(try alice.trips().map(\.code) == ["A"])
        #expect(try bob.trips().map(\.code) == ["B"])
    }

    @Test func threeDevicesAndRestartsConvergeWithoutDuplicates() async throws {
        let server = try await RunningSyncServer.start()
        let devices = try (0..<3).map { _ in try SyncDevice(server: server) }
        for (index, device) in devices.enumerated() {
            let context = device.context()
            context.insert(Trip(code: "T\(index)", name: "From \(index)"))
            try context.save()
        }
        for device in devices { try await device.engine.sync() }
        for device in devices { try await device.engine.sync() }
        try devices[1].restart()
        let context = devices[1].context()
        try #require(try devices[1].trip("T0", in: context)).price = 42
        try context.save()
        for device in devices { try await device.engine.sync() }
        for device in devices { try await device.engine.sync() }
        for device in devices {
            let trips = try device.trips()
            #expect(trips.map(\.code) == ["T0", "T1", "T2"])
            #expect(trips.first?.price == 42)
            #expect(device.engine.status.isUpToDate)
        }
    }

    @Test func continuousSyncDeliversASaveToTheOtherDevice() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        a.engine.start()
        b.engine.start()
        let context = a.context()
        context.insert(Trip(code: "LIVE", name: "Live"))
        try context.save()
        var arrived = false
        for _ in 0..<1_200 where !arrived {
            try await Task.sleep(for: .milliseconds(50))
            arrived = try b.trips().map(\.code) == ["LIVE"]
        }
        await a.engine.stop()
        await b.engine.stop()
        #expect(arrived)
    }

    /// An engine stopped again and again while another device's saves end its waits for the
    /// server: every `stop()` returns (a cancelled request whose answer was arriving once left it
    /// waiting forever on Linux), and nothing is missed.
    @Test func stoppingWhileChangesArriveAlwaysReturns() async throws {
        let server = try await RunningSyncServer.start()
        let writer = try SyncDevice(server: server)
        let reader = try SyncDevice(server: server)
        writer.engine.start()
        let saving = Task { [container = writer.container] in
            for number in 0..<150 {
                let context = ModelContext(container)
                context.insert(Trip(code: "S\(1_000 + number)", name: "Saved while the other stops"))
                try context.save()
                try await Task.sleep(for: .milliseconds(8))
            }
        }
        var random = SystemRandomNumberGenerator()
        for cycle in 0..<120 {
            reader.engine.start()
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...20, using: &random)))
            let stopped = LockedValue(false)
            Task { [engine = reader.engine] in
                await engine.stop()
                stopped.store(true)
            }
            // A bound on a hang, not a measurement: a stop that waits forever fails here.
            for _ in 0..<3_000 where !stopped.load() {
                try await Task.sleep(for: .milliseconds(10))
            }
            guard stopped.load() else {
                Issue.record("stop() did not return, cycle \(cycle)")
                return
            }
        }
        try await saving.value
        await writer.engine.stop()
        try await writer.engine.sync()
        try await reader.engine.sync()
        #expect(try reader.trips().count == 150)
    }

    @Test func savesOfTwoDevicesReachEveryWaitingDeviceOfTheUser() async throws {
        let server = try await RunningSyncServer.start()
        let devices = try (0..<5).map { _ in try SyncDevice(server: server) }
        // Another user's device waits too, and receives nothing.
        let stranger = try SyncDevice(server: server, token: "token-b")
        for device in devices + [stranger] { device.engine.start() }
        // The pulls the two saves wake read the rows together; each device still gets the other's
        // change and not its own back.
        for round in 0..<3 {
            let first = devices[0].context()
            first.insert(Trip(code: "A\(round)", name: "From the first"))
            let second = devices[1].context()
            second.insert(Trip(code: "B\(round)", name: "From the second"))
            try first.save()
            try second.save()
        }
        let expected = ["A0", "A1", "A2", "B0", "B1", "B2"]
        var arrived = false
        for _ in 0..<1_200 where !arrived {
            try await Task.sleep(for: .milliseconds(50))
            arrived = try devices.allSatisfy { try $0.trips().map(\.code) == expected }
        }
        for device in devices + [stranger] { await device.engine.stop() }
        for device in devices {
            #expect(try device.trips().map(\.code) == expected)
            #expect(try device.trips().allSatisfy { $0.name == ($0.code.hasPrefix("A") ? "From the first" : "From the second") })
            try await device.engine.refreshStatus()
            #expect(device.engine.status.pendingChangeCount == 0)
        }
        #expect(try stranger.trips().isEmpty)
    }

    private func pendingCount(_ engine: SyncEngine) async throws -> Int {
        try await engine.refreshStatus()
        return engine.status.pendingChangeCount
    }
}

/// Pulled changes go through the normal path: contexts merge them, observers update, the history
/// records them under the engine's author, and nothing pulled is sent back.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncApplyPathTests {
    @Test func pulledChangesReachOpenContextsObserversAndHistoryWithoutEcho() async throws {
        let server = try await RunningSyncServer.start()
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server)
        let contextA = a.context()

        let open = b.context()
        let held = try #require(try b.trip("T1", in: open))
        #expect(held.name == "Lisbon")
        let observer = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.code)], modelContext: b.context())
        #expect(observer.results.map(\.code) == ["T1"])

        try #require(try a.trip("T1", in: contextA)).name = "Porto"
        contextA.insert(Trip(code: "T2", name: "Faro"))
        try contextA.save()
        try await a.engine.sync()
        try await b.engine.sync()

        _ = try open.fetchCount(FetchDescriptor<Trip>())
        #expect(held.name == "Porto")
        #expect(observer.results.map(\.code) == ["T1", "T2"])
        let history = try b.context().fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.last?.author == "OpenSwiftDataSync")
        try await b.engine.refreshStatus()
        #expect(b.engine.status.pendingChangeCount == 0)
        try await b.engine.sync()
        #expect(b.engine.status.pendingChangeCount == 0)
    }
}

/// Keeps the higher price, and joins two devices' notes.
struct TripResolver: SyncConflictResolver {
    func resolve(_ conflict: SyncPropertyConflict) -> SyncResolution {
        guard conflict.model == "Trip" else { return .latest }
        switch conflict.property {
        case "price":
            guard let mine = conflict.incoming.double, let theirs = conflict.current.double else { return .latest }
            return mine >= theirs ? .incoming : .current
        case "notes":
            return .merged(.string([conflict.current.string, conflict.incoming.string].compactMap { $0 }.joined(separator: " | ")))
        default:
            return .latest
        }
    }
}

/// A resolver of the app's on the server decides what two devices changed.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncResolverTests {
    @Test func theServersResolverDecidesAndTheLosingDeviceIsTold() async throws {
        let server = try await RunningSyncServer.start(resolver: TripResolver())
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        context.insert(Trip(code: "T1", name: "Lisbon", price: 100))
        try context.save()
        try await a.engine.sync()
        try await b.engine.sync()

        let contextA = a.context()
        let tripA = try #require(try a.trip("T1", in: contextA))
        tripA.price = 300
        tripA.notes = "window seat"
        try contextA.save()
        try await Task.sleep(for: .milliseconds(20))
        let contextB = b.context()
        let tripB = try #require(try b.trip("T1", in: contextB))
        tripB.price = 200
        tripB.notes = "vegetarian"
        try contextB.save()

        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()

        for device in [a, b] {
            let trip = try #require(try device.trips().first)
            // The later price (B's) lost to the higher one; the notes were joined.
            #expect(trip.price == 300)
            #expect(trip.notes == "window seat | vegetarian")
        }
        #expect(await b.engine.resolvedConflicts.map(\.property).sorted() == ["notes", "price"])
    }
}

/// Adds both devices' changes of a trip's price to the value they started from, and records what
/// it was asked.
final class AddingPriceResolver: SyncConflictResolver, @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [SyncPropertyConflict] = []

    var conflicts: [SyncPropertyConflict] { lock.withLock { asked } }

    func resolve(_ conflict: SyncPropertyConflict) -> SyncResolution {
        lock.withLock { asked.append(conflict) }
        guard conflict.property == "price", let base = conflict.base?.double,
              let mine = conflict.incoming.double, let theirs = conflict.current.double
        else { return .current }
        return .merged(.double(theirs + mine - base))
    }
}

/// A resolver sees the value both devices started from, and is not asked about a change made over
/// the server's current value.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncResolverBaseTests {
    @Test func aResolverMergesFromTheBaseBothDevicesStartedFrom() async throws {
        let resolver = AddingPriceResolver()
        let server = try await RunningSyncServer.start(resolver: resolver)
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server, price: 100)

        // Both devices change the price from 100, without seeing each other's change.
        let contextA = a.context()
        try #require(try a.trip("T1", in: contextA)).price = 130
        try contextA.save()
        let contextB = b.context()
        try #require(try b.trip("T1", in: contextB)).price = 110
        try contextB.save()
        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()

        let first = try #require(resolver.conflicts.first)
        #expect(resolver.conflicts.count == 1)
        #expect(first.base?.double == 100 && first.current.double == 130 && first.incoming.double == 110)
        #expect(first.baseClock != nil && first.baseClock != first.currentClock)
        for device in [a, b] {
            #expect(try device.trips().first?.price == 140)
        }

        // A change made over the value the server holds is no conflict: kept as is, on both.
        let laterB = b.context()
        try #require(try b.trip("T1", in: laterB)).price = 150
        try laterB.save()
        try await b.engine.sync()
        try await a.engine.sync()
        let laterA = a.context()
        try #require(try a.trip("T1", in: laterA)).price = 160
        try laterA.save()
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(resolver.conflicts.count == 1)
        for device in [a, b] {
            #expect(try device.trips().first?.price == 160)
        }

        // The same holds after the engines restart: the clocks of the values the stores hold are kept.
        try a.restart()
        try b.restart()
        let againB = b.context()
        try #require(try b.trip("T1", in: againB)).price = 170
        try againB.save()
        try await b.engine.sync()
        try await a.engine.sync()
        #expect(resolver.conflicts.count == 1)
        #expect(try a.trips().first?.price == 170)

        // Once the server trims the values it keeps, a conflict over one of them has no base: this
        // resolver then keeps the server's value.
        let offlineA = a.context()
        try #require(try a.trip("T1", in: offlineA)).price = 180
        try offlineA.save()
        let offlineB = b.context()
        try #require(try b.trip("T1", in: offlineB)).price = 175
        try offlineB.save()
        try await a.engine.sync()
        let trimmed = try await server.server.trimHistory(olderThan: .zero)
        #expect(trimmed.pastValues > 0)
        try await b.engine.sync()
        try await a.engine.sync()
        let last = try #require(resolver.conflicts.last)
        #expect(resolver.conflicts.count == 2)
        #expect(last.base == nil && last.baseClock == nil && last.current.double == 180)
        for device in [a, b] {
            #expect(try device.trips().first?.price == 180)
        }
    }
}

/// Deleting history never deletes changes the server has not acknowledged.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncHistoryRetentionTests {
    @Test func deletingHistoryKeepsUnsentChanges() async throws {
        let server = try await RunningSyncServer.start()
        let a = try SyncDevice(server: server)
        let b = try SyncDevice(server: server)
        let context = a.context()
        context.insert(Trip(code: "T1", name: "Sent"))
        try context.save()
        try await a.engine.sync()
        context.insert(Trip(code: "T2", name: "Not sent yet"))
        try context.save()

        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        // The acknowledged transaction is gone; the unsent one stays, and reaches B.
        let kept = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).filter { $0.author != "OpenSwiftDataSync" }
        #expect(kept.count == 1)
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try b.trips().map(\.code) == ["T1", "T2"])
    }
}
