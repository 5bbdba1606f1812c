import Foundation
import Logging

/// The warnings a container's logger received (``logger``), with the statement each names.
final class CapturedWarnings: @unchecked Sendable {
    // @unchecked Sendable: `warnings` is only used while `lock` is held.
    private let lock = NSLock()
    private var warnings: [(message: String, sql: String?)] = []

    /// Every warning's message, in order.
    var all: [String] { lock.withLock { warnings.map(\.message) } }

    /// The statements of the "slow statement" warnings, in order. At a threshold of zero that is
    /// every round trip to the server, each under the statement it waited for (the last one sent).
    var slowStatements: [String] {
        lock.withLock { warnings.filter { $0.message == "slow statement" }.compactMap(\.sql) }
    }

    /// A logger that reports its warnings here.
    var logger: Logger {
        Logger(label: "test") { _ in Handler(warnings: self) }
    }

    private func append(_ message: String, sql: String?) {
        lock.withLock { warnings.append((message, sql)) }
    }

    private struct Handler: LogHandler {
        let warnings: CapturedWarnings
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            if event.level == .warning { warnings.append("\(event.message)", sql: event.metadata?["sql"].map { "\($0)" }) }
        }
    }
}
