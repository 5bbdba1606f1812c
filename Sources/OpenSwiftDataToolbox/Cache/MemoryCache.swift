import Foundation

/// A cache in memory with a limit on the number of entries and on their total cost, which evicts
/// the least recently used entries first; safe to use from several tasks at once.
///
/// Unlike `NSCache`, what it evicts is defined (the least recently used, as soon as a limit is
/// passed), it takes any `Hashable` key, and it runs the same on every platform.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The limits of a memory cache.
    public struct Limits: Sendable, Equatable {
        /// The most entries kept.
        public var count: Int
        /// The most total cost kept, in the unit the app gives each entry (bytes, say).
        public var totalCost: Int

        /// Creates limits; each is unlimited when not given.
        public init(count: Int = .max, totalCost: Int = .max) {
            self.count = count
            self.totalCost = totalCost
        }
    }

    /// The cache's limits.
    public let limits: Limits
    private let entries = Locked(LeastRecentlyUsed<Key, Value>())

    /// Creates an empty cache with the given limits.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Returns the value for `key`, or `nil` when there is none or it expired.
    public func value(forKey key: Key) -> Value? {
        entries.withLock { $0.value(for: key, now: Date.init) }
    }

    /// Stores `value` for `key`, evicting the least recently used entries past the limits.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The value's key.
    ///   - cost: The entry's cost towards ``Limits/totalCost``.
    ///   - expiry: When the entry stops being returned; never when `nil`.
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0, expiry: Date? = nil) {
        entries.withLock { entries in
            entries.set(value, for: key, cost: cost, expiry: expiry)
            while entries.count > limits.count || entries.totalCost > limits.totalCost {
                guard entries.removeOldest() != nil else { break }
            }
        }
    }

    /// Removes the value for `key` and returns it.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        entries.withLock { $0.remove(key) }
    }

    /// Removes every entry.
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// The number of entries held now.
    public var count: Int { entries.withLock { $0.count } }

    /// The total cost of the entries held now.
    public var totalCost: Int { entries.withLock { $0.totalCost } }
}
