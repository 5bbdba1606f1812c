import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// Sharing between users: a shared model and what cascades from it reach the participant, edits
/// flow both ways, a read-only participant's edits are refused and undone, and ending a share
/// removes the models from the participant's devices only.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers)
struct SyncSharingTests {
    /// Alice's device holding the trip `T1` with two stops, pushed; and a device of Bob's.
    private static func aliceWithATrip(on server: RunningSyncServer) async throws -> (alice: SyncDevice, bob: SyncDevice) {
        let alice = try SyncDevice(server: server, token: "token-a")
        let bob = try SyncDevice(server: server, token: "token-b")
        let context = alice.context()
        let trip = Trip(code: "T1", name: "Lisbon", price: 100)
        context.insert(trip)
        for (order, place) in ["Belém", "Alfama"].enumerated() {
            let stop = Stop(place: place, order: order)
            context.insert(stop)
            stop.trip = trip
        }
        try context.save()
        try await alice.engine.sync()
        return (alice, bob)
    }

    private static func share(_ code: String, on device: SyncDevice, with user: String, permission: SyncSharePermission) async throws -> SyncShare {
        let context = device.context()
        let trip = try #require(try device.trip(code, in: context))
        return try await device.engine.share(trip, with: user, permission: permission)
    }

    /// The device's trips with their stops, as text.
    private static func summary(_ device: SyncDevice) throws -> [String] {
        try device.trips().map { trip in
            "\(trip.code) \(trip.name) \(trip.price) [" + trip.stops.map(\.place).sorted().joined(separator: ",") + "]"
        }
    }

    @Test func aSharedTripReachesTheParticipantWithItsStopsAndEditsFlowBothWays() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        let own = bob.context()
        own.insert(Trip(code: "B1", name: "Bob's own", price: 1))
        try own.save()
        try await bob.engine.sync()
        #expect(try Self.summary(bob) == ["B1 Bob's own 1.0 []"], "nothing is shared yet")

        let share = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        #expect(share == SyncShare(entity: "Trip", id: share.id, owner: "alice", participant: "bob", permission: .readWrite))
        try await bob.engine.sync()
        #expect(try Self.summary(bob) == ["B1 Bob's own 1.0 []", "T1 Lisbon 100.0 [Alfama,Belém]"])

        // Bob edits the trip and adds a stop; Alice edits another property and adds one too.
        let editing = bob.context()
        let shared = try #require(try bob.trip("T1", in: editing))
        shared.name = "Lisbon and Sintra"
        let sintra = Stop(place: "Sintra", order: 2)
        editing.insert(sintra)
        sintra.trip = shared
        try editing.save()
        let aliceEditing = alice.context()
        let mine = try #require(try alice.trip("T1", in: aliceEditing))
        mine.price = 120
        let cascais = Stop(place: "Cascais", order: 3)
        aliceEditing.insert(cascais)
        cascais.trip = mine
        try aliceEditing.save()
        try await bob.engine.sync()
        try await alice.engine.sync()
        try await bob.engine.sync()
        let expected = "T1 Lisbon and Sintra 120.0 [Alfama,Belém,Cascais,Sintra]"
        #expect(try Self.summary(alice) == [expected], "Bob's trip stays his own")
        #expect(try Self.summary(bob) == ["B1 Bob's own 1.0 []", expected])

        // A second device of each user, new, downloads the same.
        let aliceAgain = try SyncDevice(server: server, token: "token-a")
        let bobAgain = try SyncDevice(server: server, token: "token-b")
        try await aliceAgain.engine.sync()
        try await bobAgain.engine.sync()
        #expect(try Self.summary(aliceAgain) == [expected])
        #expect(try Self.summary(bobAgain) == ["B1 Bob's own 1.0 []", expected])

        // Both read the share, on every device, also after a restart.
        try bob.restart()
        let context = bob.context()
        let seen = try await bob.engine.shares(of: try #require(try bob.trip("T1", in: context)))
        #expect(seen == [share])
        #expect(try await aliceAgain.engine.shares() == [share])
        #expect(try await bobAgain.engine.shares() == [share])

        // A deletion cascades on every device.
        let deleting = bob.context()
        deleting.delete(try #require(try bob.trip("T1", in: deleting)))
        try deleting.save()
        try await bob.engine.sync()
        try await alice.engine.sync()
        #expect(try alice.trips().isEmpty)
        #expect(try alice.count(Stop.self) == 0)
        #expect(try Self.summary(bob) == ["B1 Bob's own 1.0 []"])
    }

    @Test func aReadOnlyParticipantsEditsAreRefusedAndUndone() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readOnly)
        try await bob.engine.sync()
        let original = "T1 Lisbon 100.0 [Alfama,Belém]"
        #expect(try Self.summary(bob) == [original])

        // An edit of the trip, a new stop on it, and the deletion of a stop: each refused.
        let editing = bob.context()
        let trip = try #require(try bob.trip("T1", in: editing))
        trip.price = 1
        let extra = Stop(place: "Sintra", order: 2)
        editing.insert(extra)
        extra.trip = trip
        editing.delete(try #require(trip.stops.first { $0.place == "Alfama" }))
        try editing.save()
        let error = await #expect(throws: SyncError.self) { try await bob.engine.sync() }
        #expect(error?.kind == .refused)
        #expect(error?.message.contains("alice shares this Trip with bob read-only") == true, "\(error?.message ?? "")")
        #expect((bob.engine.status.lastError as? SyncError)?.kind == .refused)
        #expect(Set(await bob.engine.refusedChanges.map(\.entity)) == ["Trip", "Stop"])
        #expect(bob.engine.status.pendingChangeCount == 0)
        #expect(try Self.summary(bob) == [original], "the device holds what the server holds again")

        try await alice.engine.sync()
        #expect(try Self.summary(alice) == [original], "nothing reached the owner")
        try await bob.engine.sync()
        #expect(bob.engine.status.lastError == nil)

        // The owner upgrades the share: the same edit now syncs.
        let upgraded = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        #expect(upgraded.permission == .readWrite)
        let again = bob.context()
        try #require(try bob.trip("T1", in: again)).price = 2
        try again.save()
        try await bob.engine.sync()
        try await alice.engine.sync()
        #expect(try alice.trips().map(\.price) == [2])
    }

    @Test func endingAShareRemovesTheModelsFromTheParticipantOnly() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        let original = "T1 Lisbon 100.0 [Alfama,Belém]"
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        _ = try await Self.share("T1", on: alice, with: "carol", permission: .readOnly)
        let carol = try SyncDevice(server: server, token: "token-c")
        try await bob.engine.sync()
        try await carol.engine.sync()
        #expect(try Self.summary(bob) == [original])
        #expect(try Self.summary(carol) == [original])
        #expect(try await carol.engine.shares().map(\.participant) == ["bob", "carol"], "a participant sees who else takes part")

        // Bob edits offline while Alice revokes his share: his edit is refused, the trip leaves
        // his device, and Carol's share and Alice's trip stay.
        let editing = bob.context()
        try #require(try bob.trip("T1", in: editing)).name = "Too late"
        try editing.save()
        let context = alice.context()
        try await alice.engine.stopSharing(try #require(try alice.trip("T1", in: context)), with: "bob")
        let error = await #expect(throws: SyncError.self) { try await bob.engine.sync() }
        #expect(error?.message.contains("no longer shared with bob") == true, "\(error?.message ?? "")")
        #expect(try bob.trips().isEmpty)
        #expect(try bob.count(Stop.self) == 0)
        try await bob.engine.sync()
        #expect(bob.engine.status.lastError == nil)
        try await alice.engine.sync()
        try await carol.engine.sync()
        #expect(try Self.summary(alice) == [original])
        #expect(try Self.summary(carol) == [original])
        #expect(try await alice.engine.shares().map(\.participant) == ["carol"])

        // Carol leaves: the trip leaves her devices, Alice keeps it.
        let carolContext = carol.context()
        try await carol.engine.stopSharing(try #require(try carol.trip("T1", in: carolContext)), with: "carol")
        #expect(try carol.trips().isEmpty)
        try await alice.engine.sync()
        #expect(try Self.summary(alice) == [original])
        #expect(try await alice.engine.shares().isEmpty)

        // Shared again, the trip comes back, as it is now.
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readOnly)
        try await bob.engine.sync()
        #expect(try Self.summary(bob) == [original])
    }

    /// Continuous engines: a share, an edit of either side and a new stop reach the other user's
    /// device without a call to `sync()`.
    @Test func continuousEnginesDeliverSharedChangesBothWays() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        alice.engine.start()
        bob.engine.start()
        defer { Task { [engines = [alice.engine, bob.engine]] in for engine in engines { await engine.stop() } } }
        /// Whether `condition` holds within about a minute.
        func eventually(_ condition: () throws -> Bool) async throws -> Bool {
            for _ in 0..<1_200 {
                if try condition() { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return try condition()
        }
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        #expect(try await eventually { try Self.summary(bob) == ["T1 Lisbon 100.0 [Alfama,Belém]"] })

        let aliceEditing = alice.context()
        try #require(try alice.trip("T1", in: aliceEditing)).price = 150
        try aliceEditing.save()
        #expect(try await eventually { try bob.trips().map(\.price) == [150] })

        let bobEditing = bob.context()
        let trip = try #require(try bob.trip("T1", in: bobEditing))
        let stop = Stop(place: "Sintra", order: 2)
        bobEditing.insert(stop)
        stop.trip = trip
        try bobEditing.save()
        #expect(try await eventually { try Self.summary(alice) == ["T1 Lisbon 150.0 [Alfama,Belém,Sintra]"] })
    }

    /// A participant whose cursor is before the owner's trimmed deletions downloads its rows again:
    /// the shared stop the owner deleted is gone, and its own offline edit of the trip is kept.
    @Test func aParticipantBehindTheOwnersTrimDownloadsAgain() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        try await bob.engine.sync()
        let deleting = alice.context()
        let trip = try #require(try alice.trip("T1", in: deleting))
        deleting.delete(try #require(trip.stops.first { $0.place == "Alfama" }))
        try deleting.save()
        try await alice.engine.sync()
        let offline = bob.context()
        try #require(try bob.trip("T1", in: offline)).name = "Lisbon by night"
        try offline.save()
        let trimmed = try await server.server.trimHistory(olderThan: .zero)
        #expect(trimmed.deletions == 1)
        try await bob.engine.sync()
        try await alice.engine.sync()
        #expect(try Self.summary(bob) == ["T1 Lisbon by night 100.0 [Belém]"])
        #expect(try Self.summary(alice) == ["T1 Lisbon by night 100.0 [Belém]"])
    }

    /// A model of the participant's moved under a shared model joins the share and becomes the
    /// owner's; a read-only participant cannot hang one there.
    @Test func aParticipantsOwnModelMovedUnderASharedOneJoinsTheShare() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        let carol = try SyncDevice(server: server, token: "token-c")
        for device in [bob, carol] {
            let context = device.context()
            context.insert(Stop(place: "Own stop", order: 9))
            try context.save()
            try await device.engine.sync()
        }
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        _ = try await Self.share("T1", on: alice, with: "carol", permission: .readOnly)
        for device in [bob, carol] {
            try await device.engine.sync()
            let context = device.context()
            let stop = try #require(try context.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.place == "Own stop" })).first)
            stop.trip = try device.trip("T1", in: context)
            try context.save()
        }
        try await bob.engine.sync()
        let refused = await #expect(throws: SyncError.self) { try await carol.engine.sync() }
        #expect(refused?.message.contains("would belong to with carol read-only") == true, "\(refused?.message ?? "")")
        try await alice.engine.sync()
        try await carol.engine.sync()
        #expect(try Self.summary(alice) == ["T1 Lisbon 100.0 [Alfama,Belém,Own stop]"])
        #expect(try Self.summary(carol) == ["T1 Lisbon 100.0 [Alfama,Belém,Own stop]"], "Bob's stop, now Alice's, is shared with Carol too")
        #expect(try carol.context().fetch(FetchDescriptor<Stop>()).filter { $0.trip == nil }.map(\.place) == ["Own stop"], "Carol's own stop stays hers, on no trip")

        // Bob's stop is Alice's now: it leaves Bob's device with the share.
        let context = alice.context()
        try await alice.engine.stopSharing(try #require(try alice.trip("T1", in: context)), with: "bob")
        try await bob.engine.sync()
        #expect(try bob.count(Stop.self) == 0)
        #expect(try alice.count(Stop.self) == 3)
    }

    /// A participant who moves a model of theirs under a shared model after the share ended (not
    /// knowing yet) has the move refused: the model stays theirs, related to nothing, and its
    /// later changes sync.
    @Test func aModelMovedUnderAShareThatEndedStaysTheParticipants() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        let own = bob.context()
        own.insert(Stop(place: "Own stop", order: 9))
        try own.save()
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        _ = try await Self.share("T1", on: alice, with: "carol", permission: .readOnly)
        try await bob.engine.sync()
        let context = alice.context()
        try await alice.engine.stopSharing(try #require(try alice.trip("T1", in: context)), with: "bob")

        // Bob, offline, puts his stop on the trip; then renames it.
        let moving = bob.context()
        let stop = try #require(try moving.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.place == "Own stop" })).first)
        stop.trip = try bob.trip("T1", in: moving)
        try moving.save()
        let first = await #expect(throws: SyncError.self) { try await bob.engine.sync() }
        #expect(first?.kind == .refused, "\(String(describing: first))")
        #expect(first?.message.contains("Stop.trip relates to the model") == true && first?.message.contains("no longer shared with bob") == true)
        let renaming = bob.context()
        try #require(try renaming.fetch(FetchDescriptor<Stop>()).first).place = "Still mine"
        try renaming.save()
        try await bob.engine.sync()
        #expect(bob.engine.status.lastError == nil)
        #expect(try bob.trips().isEmpty)
        #expect(try bob.context().fetch(FetchDescriptor<Stop>()).map { "\($0.place) \($0.trip?.code ?? "-")" } == ["Still mine -"])
        let carol = try SyncDevice(server: server, token: "token-c")
        try await carol.engine.sync()
        try await alice.engine.sync()
        #expect(try Self.summary(carol) == ["T1 Lisbon 100.0 [Alfama,Belém]"])
        #expect(try Self.summary(alice) == ["T1 Lisbon 100.0 [Alfama,Belém]"])
    }

    /// A stop moved off a shared trip leaves the share: it leaves the participants' devices (not
    /// the owner's), a new participant never receives it, and moving it back shares it again. A
    /// stop moved between two trips shared with the same participant stays on their devices.
    @Test func aModelMovedOffASharedModelLeavesTheShare() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readOnly)
        try await bob.engine.sync()
        #expect(try Self.summary(bob) == ["T1 Lisbon 100.0 [Alfama,Belém]"])

        let moving = alice.context()
        let other = Trip(code: "T2", name: "Porto")
        moving.insert(other)
        try #require(try alice.trip("T1", in: moving)).stops.first { $0.place == "Alfama" }?.trip = other
        try moving.save()
        try await alice.engine.sync()
        try await bob.engine.sync()
        #expect(try Self.summary(bob) == ["T1 Lisbon 100.0 [Belém]"])
        #expect(try bob.context().fetch(FetchDescriptor<Stop>()).map(\.place) == ["Belém"], "the moved stop left Bob's device")
        #expect(try Self.summary(alice) == ["T1 Lisbon 100.0 [Belém]", "T2 Porto 0.0 [Alfama]"])

        let carol = try SyncDevice(server: server, token: "token-c")
        _ = try await Self.share("T1", on: alice, with: "carol", permission: .readOnly)
        try await carol.engine.sync()
        #expect(try carol.context().fetch(FetchDescriptor<Stop>()).map(\.place) == ["Belém"])

        // Back on the shared trip, the stop reaches both participants again.
        let back = alice.context()
        try #require(try alice.trip("T2", in: back)).stops.first?.trip = try alice.trip("T1", in: back)
        try back.save()
        try await alice.engine.sync()
        for device in [bob, carol] {
            try await device.engine.sync()
            #expect(try Self.summary(device) == ["T1 Lisbon 100.0 [Alfama,Belém]"])
        }

        // Between two trips shared with Bob, a stop stays on his devices.
        _ = try await Self.share("T2", on: alice, with: "bob", permission: .readWrite)
        let hop = alice.context()
        try #require(try alice.trip("T1", in: hop)).stops.first { $0.place == "Belém" }?.trip = try alice.trip("T2", in: hop)
        try hop.save()
        try await alice.engine.sync()
        try await bob.engine.sync()
        try await carol.engine.sync()
        #expect(try Self.summary(bob) == ["T1 Lisbon 100.0 [Alfama]", "T2 Porto 0.0 [Belém]"])
        #expect(try Self.summary(carol) == ["T1 Lisbon 100.0 [Alfama]"])
        #expect(try carol.context().fetch(FetchDescriptor<Stop>()).map(\.place) == ["Alfama"])
        let fresh = try SyncDevice(server: server, token: "token-b")
        try await fresh.engine.sync()
        #expect(try Self.summary(fresh) == Self.summary(bob))
    }

    /// A read-write participant who moves the owner's shared model under a model of their own
    /// has the move refused and undone: the model stays the owner's, on the shared model.
    @Test func aParticipantCannotMoveASharedModelUnderTheirOwn() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readWrite)
        try await bob.engine.sync()
        let moving = bob.context()
        let own = Trip(code: "B1", name: "Bob's")
        moving.insert(own)
        try #require(try bob.trip("T1", in: moving)).stops.first { $0.place == "Alfama" }?.trip = own
        try moving.save()
        let refused = await #expect(throws: SyncError.self) { try await bob.engine.sync() }
        #expect(refused?.kind == .refused)
        #expect(refused?.message.contains("is alice's: it moves only under models alice shares with bob") == true, "\(refused?.message ?? "")")
        try await alice.engine.sync()
        #expect(try Self.summary(bob) == ["B1 Bob's 0.0 []", "T1 Lisbon 100.0 [Alfama,Belém]"])
        #expect(try Self.summary(alice) == ["T1 Lisbon 100.0 [Alfama,Belém]"])
    }

    @Test func onlyTheOwnerSharesAModel() async throws {
        let server = try await RunningSyncServer.start("share")
        let (alice, bob) = try await Self.aliceWithATrip(on: server)
        let selfShare = await #expect(throws: SyncError.self) { _ = try await Self.share("T1", on: alice, with: "alice", permission: .readOnly) }
        #expect(selfShare?.kind == .rejected)
        _ = try await Self.share("T1", on: alice, with: "bob", permission: .readOnly)
        try await bob.engine.sync()
        let reshare = await #expect(throws: SyncError.self) { _ = try await Self.share("T1", on: bob, with: "carol", permission: .readOnly) }
        #expect(reshare?.kind == .rejected)
        #expect(reshare?.message.contains("only its owner shares it") == true, "\(reshare?.message ?? "")")
        let unsaved = await #expect(throws: SyncError.self) {
            _ = try await alice.engine.share(Trip(code: "T9", name: "Nowhere"), with: "bob", permission: .readOnly)
        }
        #expect(unsaved?.kind == .rejected)
        #expect(try await bob.engine.shares().count == 1)
    }
}
