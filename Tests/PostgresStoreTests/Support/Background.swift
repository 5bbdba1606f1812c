import Foundation

/// Work on a thread of its own, whose outcome the test waits for with a limit.
final class Background<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `outcome` is written once, before `done` is signalled, and read after.
    private var outcome: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            outcome = Result(catching: work)
            done.signal()
        }
        thread.start()
    }

    /// The outcome, or `nil` if the work did not finish within `seconds`.
    func wait(seconds: Double) -> Result<Value, any Error>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return outcome
    }
}
