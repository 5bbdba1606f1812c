import Foundation

/// Entries ordered from the most recently used to the least, with a total cost: the memory tier's
/// bookkeeping, every operation in constant time.
///
/// Entries live in slots of parallel arrays, linked by slot numbers, so that using an entry moves
/// two integers rather than copying the entry.
struct LeastRecentlyUsed<Key: Hashable, Value> {
    private var keys: [Key?] = []
    private var values: [Value?] = []
    private var costs: [Int] = []
    private var expiries: [Date?] = []
    private var newer: [Int] = []
    private var older: [Int] = []
    private var unused: [Int] = []
    private var slots: [Key: Int] = [:]
    private var newest = -1
    private var oldest = -1
    private(set) var totalCost = 0

    var count: Int { slots.count }

    /// Returns the value for `key` and makes it the most recently used, or removes it and returns
    /// `nil` when it expired before `now()`.
    mutating func value(for key: Key, now: () -> Date) -> Value? {
        guard let slot = slots[key] else { return nil }
        if let expiry = expiries[slot], expiry <= now() {
            remove(key)
            return nil
        }
        if slot != newest {
            unlink(slot)
            pushNewest(slot)
        }
        return values[slot]
    }

    /// Stores `value` for `key` as the most recently used entry.
    mutating func set(_ value: Value, for key: Key, cost: Int, expiry: Date?) {
        if let slot = slots[key] {
            totalCost += cost - costs[slot]
            values[slot] = value
            costs[slot] = cost
            expiries[slot] = expiry
            if slot != newest {
                unlink(slot)
                pushNewest(slot)
            }
            return
        }
        let slot: Int
        if let reused = unused.popLast() {
            slot = reused
            keys[slot] = key
            values[slot] = value
            costs[slot] = cost
            expiries[slot] = expiry
        } else {
            slot = keys.count
            keys.append(key)
            values.append(value)
            costs.append(cost)
            expiries.append(expiry)
            newer.append(-1)
            older.append(-1)
        }
        slots[key] = slot
        totalCost += cost
        pushNewest(slot)
    }

    /// Removes the entry for `key`, if any.
    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        unlink(slot)
        let value = values[slot]
        keys[slot] = nil
        values[slot] = nil
        expiries[slot] = nil
        totalCost -= costs[slot]
        unused.append(slot)
        return value
    }

    /// Removes the least recently used entry and returns its key.
    @discardableResult
    mutating func removeOldest() -> Key? {
        guard oldest >= 0, let key = keys[oldest] else { return nil }
        remove(key)
        return key
    }

    /// Removes every entry.
    mutating func removeAll() {
        self = LeastRecentlyUsed()
    }

    private mutating func unlink(_ slot: Int) {
        let newerSlot = newer[slot], olderSlot = older[slot]
        if newerSlot >= 0 { older[newerSlot] = olderSlot } else { newest = olderSlot }
        if olderSlot >= 0 { newer[olderSlot] = newerSlot } else { oldest = newerSlot }
        newer[slot] = -1
        older[slot] = -1
    }

    private mutating func pushNewest(_ slot: Int) {
        older[slot] = newest
        newer[slot] = -1
        if newest >= 0 { newer[newest] = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
