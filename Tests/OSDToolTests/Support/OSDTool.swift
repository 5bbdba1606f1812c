import Foundation
import OpenSwiftData

/// Runs the `osd` executable that `swift build` puts beside the test bundle.
enum OSDTool {
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("osd")
    }

    /// Runs `osd` with `arguments` to its end.
    static func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read both pipes while the process runs, so that neither fills up.
        let errorData = LockedData()
        let reader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        return Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                      error: String(decoding: errorData.value, as: UTF8.self))
    }

    private final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        func set(_ value: Data) { lock.withLock { data = value } }
        var isSet: Bool { lock.withLock { data != nil } }
        var value: Data { lock.withLock { data ?? Data() } }
    }
}

/// A temporary directory removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("osd-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

extension StoreFile {
    /// An SQLite database with one table that OpenSwiftData did not write, made with the tool's
    /// own connection type so that the tests need no other SQLite binding.
    static func createForeignDatabase(at path: String) throws {
        try foreignDatabase(at: path, sql: "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ann')")
    }
}
