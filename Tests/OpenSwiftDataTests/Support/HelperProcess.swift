import Foundation

/// The helper executables that `swift build` puts beside the test bundle (`Tools/`): other
/// processes on the same store, and processes measured or damaged alone.
enum HelperProcess {
    /// The URL of the helper named `name`.
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Starts the helper `name` with `arguments`, its standard output piped.
    static func start(_ name: String, _ arguments: [String]) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = url(name)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Runs `body` on a thread of its own and returns what it returns, holding none of the threads
    /// Swift's tasks share while it runs: for a wait on another process whose timing matters (a
    /// suspended test resumes only when the run's other tests leave it one of those threads).
    static func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs the helper `name` with `arguments` to its end; returns its exit status and output.
    static func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let (process, output) = try start(name, arguments)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
