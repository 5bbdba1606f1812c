import Foundation

/// A value shared between threads that is read far more often than it changes: readers hold a
/// shared lock and never wait for each other, only for a writer.
final class ReadMostlyValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read under the read lock and only written under the
    // write lock.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Returns what `body` returns, reading the value beside other readers.
    func read<R>(_ body: (Value) throws -> R) rethrows -> R {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Changes the value, alone, and returns what `body` returns.
    func write<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
