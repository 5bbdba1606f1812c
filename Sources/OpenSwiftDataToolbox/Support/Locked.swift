import Foundation

/// A value guarded by a lock, for state that several threads share.
///
/// `Synchronization.Mutex` needs macOS 15 and iOS 18; this package supports macOS 14 and iOS 17.
/// Invariant for `@unchecked Sendable`: `value` is read and written only inside `withLock`, which
/// holds `lock` for the whole closure.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
