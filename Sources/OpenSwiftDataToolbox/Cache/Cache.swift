import Foundation

/// A two-tier cache: a ``MemoryCache`` in front of a ``DiskCache``, for values an app can fetch or
/// compute again (images, responses, thumbnails).
///
/// A read looks in memory, then on disk (keeping what it finds in memory); a write goes to both.
/// Values reach the disk through the cache's encoding: `Data` as it is, `Codable` values as JSON,
/// or closures of the app's own. An entry on disk that doesn't decode reads as a miss and is
/// removed. Errors of the disk (no space, no permission) throw.
public final class Cache<Value: Sendable>: Sendable {
    /// The memory tier.
    public let memory: MemoryCache<String, Value>
    /// The disk tier, or `nil` for a cache in memory only.
    public let disk: DiskCache?
    private let encode: @Sendable (Value) throws -> Data
    private let decode: @Sendable (Data) throws -> Value
    private let cost: @Sendable (Value, Data?) -> Int

    /// Creates a cache over the given tiers, with the app's encoding for the disk tier.
    ///
    /// - Parameters:
    ///   - memory: The memory tier.
    ///   - disk: The disk tier, or `nil` for a cache in memory only.
    ///   - encode: Turns a value into the data the disk tier stores.
    ///   - decode: Turns the disk tier's data back into a value; a throw makes the entry a miss.
    ///   - cost: An entry's cost in the memory tier, given its value and, when it was encoded, its
    ///     encoding; the encoding's size, or 1 for a value read from memory, by default.
    public init(
        memory: MemoryCache<String, Value>,
        disk: DiskCache?,
        encode: @escaping @Sendable (Value) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Value,
        cost: @escaping @Sendable (Value, Data?) -> Int = { $1?.count ?? 1 }
    ) {
        self.memory = memory
        self.disk = disk
        self.encode = encode
        self.decode = decode
        self.cost = cost
    }

    /// Returns the value for `key` from memory or disk, or `nil` when neither has it.
    public func value(forKey key: String) throws -> Value? {
        if let value = memory.value(forKey: key) { return value }
        guard let disk, let data = try disk.data(forKey: key) else { return nil }
        let value: Value
        do {
            value = try decode(data)
        } catch {
            // Written by another version of the app, or with another encoding: the entry is
            // removed and the read is a miss (the cache's documented contract), not an error.
            try disk.removeData(forKey: key)
            return nil
        }
        memory.setValue(value, forKey: key, cost: cost(value, data))
        return value
    }

    /// Stores `value` for `key` in memory and on disk.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The value's key.
    ///   - lifetime: How long the entry is returned; the disk tier's default when `nil`.
    public func setValue(_ value: Value, forKey key: String, lifetime: TimeInterval? = nil) throws {
        let data = disk == nil ? nil : try encode(value)
        if let disk, let data {
            try disk.setData(data, forKey: key, lifetime: lifetime)
        }
        let lifetime = lifetime ?? disk?.limits.defaultLifetime
        memory.setValue(value, forKey: key, cost: cost(value, data), expiry: lifetime.map { Date().addingTimeInterval($0) })
    }

    /// Removes the value for `key` from both tiers.
    public func removeValue(forKey key: String) throws {
        memory.removeValue(forKey: key)
        try disk?.removeData(forKey: key)
    }

    /// Removes every value from both tiers.
    public func removeAll() throws {
        memory.removeAll()
        try disk?.removeAll()
    }
}

extension Cache where Value == Data {
    /// Creates a cache of data, kept as it is on disk.
    public convenience init(
        directory: URL?,
        memoryLimits: MemoryCache<String, Data>.Limits = .init(totalCost: 32 * 1024 * 1024),
        diskLimits: DiskCache.Limits = .init()
    ) throws {
        self.init(
            memory: MemoryCache(limits: memoryLimits),
            disk: try directory.map { try DiskCache(directory: $0, limits: diskLimits) },
            encode: { $0 }, decode: { $0 }, cost: { value, _ in value.count }
        )
    }
}

extension Cache where Value: Codable {
    /// Creates a cache of `Codable` values, kept as JSON on disk.
    public convenience init(
        directory: URL?,
        memoryLimits: MemoryCache<String, Value>.Limits = .init(count: 1000),
        diskLimits: DiskCache.Limits = .init()
    ) throws {
        self.init(
            memory: MemoryCache(limits: memoryLimits),
            disk: try directory.map { try DiskCache(directory: $0, limits: diskLimits) },
            encode: { try JSONEncoder().encode($0) },
            decode: { try JSONDecoder().decode(Value.self, from: $0) }
        )
    }
}
