import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// The server and the clients as processes: `osd sync-server` started as the docs show it, and the
/// convergence checker's short run, whose clients and server are killed with SIGKILL mid-run.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .serialized)
struct SyncProcessTests {
    private static func executable(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    @Test func osdSyncServerServesTwoDevices() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "osd-sync-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // The schema file is what `osd schema` prints of a store of the app's models.
        let seed = try ModelContainer(for: Schema(syncModels), configurations: ModelConfiguration(url: directory.appending(path: "seed.store")))
        try ModelContext(seed).save()
        let (schemaStatus, schemaText) = try await runToEnd(Self.executable("osd"), ["schema", directory.appending(path: "seed.store").path, "--json"])
        #expect(schemaStatus == 0)
        try schemaText.write(to: directory.appending(path: "schema.json"))
        try Data("# token user\ndevice-token alice\n".utf8).write(to: directory.appending(path: "tokens"))

        let server = Process()
        server.executableURL = Self.executable("osd")
        server.arguments = [
            "sync-server", "--postgres", try #require(SyncPostgres.url), "--name", SyncPostgres.freshName("osd"),
            "--schema", directory.appending(path: "schema.json").path, "--port", "0", "--tokens", directory.appending(path: "tokens").path,
        ]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasPrefix("listening on "))
        let port = try #require(Int(text.dropFirst("listening on ".count)))
        let serverURL = try #require(URL(string: "http://127.0.0.1:\(port)"))

        func device(_ name: String) throws -> (ModelContainer, SyncEngine) {
            let container = try ModelContainer(for: Schema(syncModels), configurations: ModelConfiguration(url: directory.appending(path: "\(name).store")))
            return (container, SyncEngine(container: container, configuration: SyncConfiguration(serverURL: serverURL, token: "device-token")))
        }
        let (phone, phoneEngine) = try device("phone")
        let (laptop, laptopEngine) = try device("laptop")
        let context = ModelContext(phone)
        let trip = Trip(code: "T1", name: "Lisbon", price: 99.5)
        context.insert(trip)
        let stop = Stop(place: "Belém", order: 1)
        context.insert(stop)
        stop.trip = trip
        try context.save()
        try await phoneEngine.sync()
        try await laptopEngine.sync()
        let received = try ModelContext(laptop).fetch(FetchDescriptor<Trip>())
        #expect(received.map(\.name) == ["Lisbon"])
        #expect(received.first?.stops.map(\.place) == ["Belém"])

        let stranger = SyncEngine(container: laptop, configuration: SyncConfiguration(serverURL: serverURL, token: "not-in-the-file"))
        await #expect(throws: SyncError.self) { try await stranger.sync() }
    }

    @Test func theSyncNotesExampleShipsTheSchemaOfItsModels() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "osd-sync-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appending(path: "notes.store").path
        func run(_ name: String, _ arguments: [String]) async throws -> String {
            String(decoding: try await runToEnd(Self.executable(name), arguments).output, as: UTF8.self)
        }
        // No server listens on port 1: the note is kept, and the example says it waits.
        let added = try await run("SyncNotes", ["--server", "http://127.0.0.1:1", "--store", store, "add", "Buy", "milk"])
        #expect(added.contains("1 change(s) wait to be sent"))
        #expect(added.contains("[ ] Buy milk"))
        let schema = try await run("osd", ["schema", store, "--json"])
        let shipped = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Examples/SyncNotes/schema.json"), encoding: .utf8)
        #expect(schema == shipped)
    }

    @Test func theConvergenceCheckerFindsNoViolationWithKilledClientsAndServer() async throws {
        let (text, status) = try await Self.runChecker(["--runs", "1", "--clients", "3", "--operations", "150", "--seed", "20261129"])
        #expect(text.contains("violations: 0"), "\(text)")
        #expect(status == 0)
    }

    /// Three server processes behind one database, clients moving between them between
    /// synchronizations (and continuous ones now and then), one server killed and restarted.
    @Test func theConvergenceCheckerFindsNoViolationAcrossThreeServerProcesses() async throws {
        let (text, status) = try await Self.runChecker(["--runs", "1", "--clients", "4", "--operations", "100", "--seed", "20261203", "--servers", "3"])
        #expect(text.contains("3 server processes") && text.contains("violations: 0"), "\(text)")
        #expect(status == 0)
    }

    @Test func theConvergenceCheckerFindsNoViolationWhenTheServerTrimsMidRun() async throws {
        let (text, status) = try await Self.runChecker(["--runs", "1", "--clients", "3", "--operations", "80", "--seed", "20261202", "--trims"])
        #expect(text.contains("trims: 1") && text.contains("violations: 0"), "\(text)")
        #expect(status == 0)
    }

    /// Three users, the first sharing groups with the second (read-write) and the third
    /// (read-only) and revoking shares now and then: each user's clients converge on what the
    /// server shares with them.
    @Test func theConvergenceCheckerFindsNoViolationWithSharesBetweenUsers() async throws {
        let (text, status) = try await Self.runChecker(["--runs", "1", "--clients", "6", "--operations", "100", "--seed", "20261204", "--shares"])
        #expect(text.contains("three users sharing") && text.contains("violations: 0"), "\(text)")
        #expect(status == 0)
    }

    /// Runs `SyncCheck run` on the test server with `arguments`; returns its report and status.
    private static func runChecker(_ arguments: [String]) async throws -> (text: String, status: Int32) {
        let (status, output) = try await runToEnd(executable("SyncCheck"), ["run", "--postgres", try #require(SyncPostgres.url)] + arguments)
        return (String(decoding: output, as: UTF8.self), status)
    }
}
