import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// A server that is away for a moment (restarting, failing over): a fetch or save that needs a
/// new connection waits for it within the configuration's `reconnectionTimeout`, rather than
/// failing at once, and throws when it stays away longer. A proxy between the store and the
/// server (`CuttingProxy`) loses the connection and refuses new ones on cue.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresReconnectionTests {
    /// A fresh namespace, reached through a proxy and directly.
    let namespace: ProxiedNamespace
    var proxy: CuttingProxy { namespace.proxy }

    init() throws {
        namespace = try ProxiedNamespace("reconnect")
    }

    func container(reconnectionTimeout: TimeInterval, readConnections: Int = 4) throws -> ModelContainer {
        var configuration = namespace.throughProxy
        configuration.reconnectionTimeout = reconnectionTimeout
        configuration.maximumReadConnections = readConnections
        return try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
    }

    /// Waits until the proxy has refused `count` connections: the store is trying again rather
    /// than failing. Gives up after a minute (the expectation then fails).
    func waitForRefusals(_ count: Int) {
        let deadline = Date().addingTimeInterval(60)
        while proxy.refusals < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(proxy.refusals >= count, "the store tried to connect again while the server was away")
    }

    // The store's calls block their threads, so each runs on a thread of its own (`Background`),
    // not on Swift's shared threads, which the test itself needs.

    @Test func aFetchWhileTheServerIsAwayWaitsForItAndReads() throws {
        let container = try container(reconnectionTimeout: 120)
        let writer = ModelContext(container)
        writer.insert(Poster(label: "one"))
        try writer.save()

        proxy.cut(.afterAnswer("SELECT"), thenRefuse: true)
        let reading = Background {
            try ModelContext(container).fetch(FetchDescriptor<Poster>()).map(\.label)
        }
        waitForRefusals(3)
        proxy.refuseConnections(false)
        #expect(try reading.wait(seconds: 120)?.get() == ["one"])
        #expect(proxy.cuts == 1)
    }

    /// Saves that arrive while the connection is being replaced wait behind it, and each is
    /// saved once when the server is back.
    @Test func savesWhileTheServerIsAwayWaitForItAndAreSavedOnce() throws {
        let container = try container(reconnectionTimeout: 120, readConnections: 0)
        let writer = ModelContext(container)
        writer.insert(Poster(label: "before"))
        try writer.save()

        proxy.cut(.afterAnswer("SELECT"), thenRefuse: true)
        let reading = Background { try ModelContext(container).fetchCount(FetchDescriptor<Poster>()) }
        waitForRefusals(1)
        let saves = (0..<4).map { number in
            Background {
                let context = ModelContext(container)
                context.insert(Poster(label: "during \(number)"))
                try context.save()
            }
        }
        waitForRefusals(4)
        proxy.refuseConnections(false)
        #expect(try reading.wait(seconds: 120)?.get() == 1)
        for save in saves { #expect(try save.wait(seconds: 120)?.get() != nil) }

        let stored = try ModelContext(ModelContainer(for: Schema([Poster.self]), configurations: [namespace.direct]))
        let labels = try stored.fetch(FetchDescriptor<Poster>()).map(\.label).sorted()
        #expect(labels == ["before", "during 0", "during 1", "during 2", "during 3"])
        #expect(try stored.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 5)
    }

    /// A server away for longer than the timeout fails the call with `storeUnavailable`; the
    /// next call, once it is back, connects again.
    @Test func aServerAwayLongerThanTheTimeoutFailsTheCall() throws {
        let container = try container(reconnectionTimeout: 0.2)
        let writer = ModelContext(container)
        writer.insert(Poster(label: "one"))
        try writer.save()

        proxy.cut(.afterAnswer("SELECT"), thenRefuse: true)
        let reader = ModelContext(container)
        #expect(throws: SwiftDataError.storeUnavailable) { try reader.fetch(FetchDescriptor<Poster>()) }
        #expect(proxy.refusals >= 1)
        proxy.refuseConnections(false)
        #expect(try reader.fetch(FetchDescriptor<Poster>()).map(\.label) == ["one"])
    }

    /// Opening a container does not wait: a server that cannot be reached then is a
    /// configuration to fix, and the open says so at once.
    @Test func openingWhileTheServerIsAwayThrowsAtOnce() throws {
        proxy.refuseConnections(true)
        var configuration = namespace.throughProxy
        configuration.reconnectionTimeout = 3_600
        #expect(throws: SwiftDataError.storeUnavailable) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        }
        #expect(proxy.refusals == 1)
    }
}
