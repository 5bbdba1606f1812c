import Foundation

/// An `osd` process that keeps running (such as `osd history --follow`), whose output a test
/// watches while it works on the store, stopped when the test is done with it.
final class RunningTool: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var collected = Data()

    /// Starts `osd` with `arguments`.
    init(_ arguments: [String]) throws {
        process.executableURL = OSDTool.url
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.collected.append(data) }
        }
        try process.run()
    }

    deinit { stop() }

    /// Everything the process has written so far.
    var output: String { lock.withLock { String(decoding: collected, as: UTF8.self) } }

    /// Whether the process is still running.
    var isRunning: Bool { process.isRunning }

    /// Waits up to `seconds` for the output to satisfy `condition`; returns whether it did.
    func waitForOutput(seconds: Double = 60, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(output) { return true }
            usleep(20_000)
        }
        return condition(output)
    }

    /// Stops the process. (With SIGKILL: a process started from a test's thread inherits its
    /// blocked signals, SIGTERM among them.)
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
