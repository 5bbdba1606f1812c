import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// A server restarted while saves run: the save in flight throws, no save is half-written, and
/// saving works again once the server is back. Needs a server of its own, which
/// `OSD_POSTGRES_RESTARTABLE=1 Scripts/with-postgres.sh` provides (`Scripts/test-all.sh` runs it).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["OSD_POSTGRES_RESTART"] != nil,
                "OSD_POSTGRES_RESTART is not set: the restart test runs alone on its own server (Scripts/test-all.sh)"))
struct PostgresRestartTests {
    /// Each save inserts this many posters, labelled with the save's number.
    static let postersPerSave = 50

    @Test func aRestartFailsTheSaveInFlightAndNothingIsHalfWritten() async throws {
        let configuration = try PostgresServer.freshConfiguration("restart")
        let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        let outcomes = Outcomes()
        let saver = Task.detached {
            // Saves until one succeeds after the restart (or 60 seconds pass).
            let deadline = Date().addingTimeInterval(60)
            var number = 0
            while Date() < deadline {
                number += 1
                let context = ModelContext(container)
                for index in 0..<Self.postersPerSave { context.insert(Poster(label: "\(number)-\(index)")) }
                do {
                    try context.save()
                    if outcomes.record(number, failure: nil) { return }
                } catch {
                    _ = outcomes.record(number, failure: error)
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
        // Let some saves land, then crash and restart the server under one. A lock on the table
        // holds the next save at the server until the crash, so that one is in flight: without
        // it the restart can fall between two saves, and the next one simply connects again.
        while outcomes.succeeded.count < 5 { try await Task.sleep(for: .milliseconds(10)) }
        let blocker = try PostgresServer.connect()
        try PostgresServer.sql("BEGIN", on: blocker)
        try PostgresServer.sql("LOCK TABLE \(configuration.name).\"Poster\" IN ACCESS EXCLUSIVE MODE", on: blocker)
        let waiting = "SELECT count(*)::text FROM pg_stat_activity WHERE application_name = 'OpenSwiftData \(configuration.name)' AND wait_event_type = 'Lock'"
        let waitDeadline = Date().addingTimeInterval(30)
        while try PostgresServer.sql(waiting) == ["0"], Date() < waitDeadline { try await Task.sleep(for: .milliseconds(10)) }
        try restartServer()
        outcomes.markRestarted()
        _ = try? await blocker.close().get()   // the restart ended its session
        try await saver.value

        let failures = outcomes.failures
        #expect(!failures.isEmpty, "a save met the restart")
        for (_, error) in failures {
            #expect((error as? SwiftDataError) == .storeUnavailable, "\(error)")
        }
        #expect(outcomes.succeededAfterRestart, "a save after the server came back succeeded")

        // Every save is whole or absent: a save that succeeded is whole; one that threw was not
        // kept, unless the server stayed out of reach too long to say (its outcome was unknown,
        // and the error says so); none is kept in part.
        let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
        var counts: [Int: Int] = [:]
        for poster in try context.fetch(FetchDescriptor<Poster>()) {
            counts[Int(poster.label.split(separator: "-")[0]) ?? -1, default: 0] += 1
        }
        for number in outcomes.succeeded { #expect(counts[number] == Self.postersPerSave, "save \(number) succeeded") }
        for (number, count) in counts { #expect(count == Self.postersPerSave, "save \(number) has \(count) of its posters") }
        for (number, error) in failures where (error as? SwiftDataError)?.reason?.contains("is unknown") != true {
            #expect(counts[number] == nil, "save \(number) threw (\(error)) and was not kept")
        }
    }

    private func restartServer() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", try #require(ProcessInfo.processInfo.environment["OSD_POSTGRES_RESTART"])]
        // The restarted server must not hold the test runner's output open.
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}

/// What the saving task saw, shared with the test.
private final class Outcomes: @unchecked Sendable {
    // @unchecked Sendable: every property is used only while `lock` is held.
    private let lock = NSLock()
    private var restarted = false
    private var _succeeded: [Int] = []
    private var _failures: [(Int, any Error)] = []
    private var _succeededAfterRestart = false

    /// Records a save's outcome; returns whether the saving can stop (a save succeeded after the
    /// restart).
    func record(_ number: Int, failure: (any Error)?) -> Bool {
        lock.withLock {
            if let failure {
                _failures.append((number, failure))
                return false
            }
            _succeeded.append(number)
            if restarted { _succeededAfterRestart = true }
            return _succeededAfterRestart
        }
    }

    func markRestarted() { lock.withLock { restarted = true } }
    var succeeded: [Int] { lock.withLock { _succeeded } }
    var failures: [(Int, any Error)] { lock.withLock { _failures } }
    var succeededAfterRestart: Bool { lock.withLock { _succeededAfterRestart } }
}
