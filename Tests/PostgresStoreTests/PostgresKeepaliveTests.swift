import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// A store's TCP connections probe a silent server (TCP keepalive), so that a statement waiting
/// on a network that failed without closing the connection ends with an error instead of waiting
/// forever: after 30 seconds of silence by default, as the URL's `keepalives_idle` says, and not
/// at all with `keepalives=0`. Read from the system's table of TCP sockets (Linux).
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp"), "needs /proc/net/tcp (Linux)"))
struct PostgresKeepaliveTests {
    /// The timer of the client end of each connection the store of `configuration` has open, from
    /// `/proc/net/tcp`: its kind (0 none, 1 retransmission, 2 keepalive) and the clock ticks
    /// (hundredths of a second) until it fires.
    static func timers(of configuration: PostgresStoreConfiguration) throws -> [(kind: Int, ticks: Int)] {
        let ports = try PostgresServer.sql("SELECT client_port::text FROM pg_stat_activity WHERE application_name = 'OpenSwiftData \(configuration.name)'")
            .compactMap { Int($0) }
        var timers: [(kind: Int, ticks: Int)] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = contents(of: table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // Established connections only (state 01): a closed connection that used the same
                // local port earlier may still be in the table, in TIME_WAIT (its timer kind 3).
                guard fields.count > 5, fields[3] == "01", let local = fields[1].split(separator: ":").last,
                      let port = Int(local, radix: 16), ports.contains(port) else { continue }
                let timer = fields[5].split(separator: ":")
                guard timer.count == 2, let kind = Int(timer[0], radix: 16), let ticks = Int(timer[1], radix: 16) else { continue }
                timers.append((kind, ticks))
            }
        }
        return timers
    }

    /// The text of a file of `/proc`, read to its end (their size is given as 0, which Foundation's
    /// readers take at its word).
    static func contents(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A configuration of a fresh namespace with `query` added to the server's URL.
    static func configuration(_ query: String) throws -> PostgresStoreConfiguration {
        let fresh = try PostgresServer.freshConfiguration("keepalive")
        var components = try #require(URLComponents(url: fresh.url, resolvingAgainstBaseURL: false))
        components.percentEncodedQuery = query.isEmpty ? nil : query
        return PostgresStoreConfiguration(name: fresh.name, url: try #require(components.url))
    }

    /// Opens a store, saves once and returns the timers of its idle connections.
    static func idleTimers(_ query: String) throws -> [(kind: Int, ticks: Int)] {
        let configuration = try configuration(query)
        let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(Poster(label: "probe"))
        try context.save()
        return try withExtendedLifetime(container) { try timers(of: configuration) }
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func connectionsProbeAfterThirtySecondsOfSilenceByDefault() throws {
        let timers = try Self.idleTimers("")
        #expect(!timers.isEmpty, "the store's connection is in /proc/net/tcp")
        for timer in timers {
            #expect(timer.kind == 2, "a keepalive timer runs on the idle connection")
            #expect(timer.ticks <= 3_000, "the first probe goes out within 30 seconds, not the system's two hours: \(timer.ticks) ticks")
        }
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func theURLSetsWhenProbesStart() throws {
        let timers = try Self.idleTimers("keepalives_idle=7&keepalives_interval=2&keepalives_count=2")
        #expect(!timers.isEmpty)
        for timer in timers {
            #expect(timer.kind == 2)
            #expect(timer.ticks <= 700, "\(timer.ticks) ticks")
        }
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func keepalivesZeroTurnsProbesOff() throws {
        let timers = try Self.idleTimers("keepalives=0")
        #expect(!timers.isEmpty)
        #expect(timers.allSatisfy { $0.kind == 0 }, "\(timers)")
    }
}
