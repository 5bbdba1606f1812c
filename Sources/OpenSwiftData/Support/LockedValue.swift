import Foundation

/// A value behind a lock, for the few counters and flags shared across threads.
///
/// `Synchronization.Atomic` would do, but needs macOS 15 and iOS 18; SwiftData's users target
/// macOS 14 and iOS 17.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written while `lock` is held. The lock is not
    // recursive, so no access to `value` can overlap another (a second one would wait for the
    // lock forever first): it skips the run-time exclusivity check.
    private let lock = NSLock()
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Reads the value.
    package func load() -> Value { lock.withLock { value } }

    /// Replaces the value.
    package func store(_ newValue: Value) { lock.withLock { value = newValue } }

    /// Changes the value and returns what `body` returns.
    package func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R { try lock.withLock { try body(&value) } }
}
