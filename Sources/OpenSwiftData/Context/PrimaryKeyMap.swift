/// The identity map of one entity: registered models by primary key.
///
/// Primary keys are mostly dense ascending integers (SQLite's row ids, PostgreSQL's sequences), so
/// the map keeps a run of them in a plain array indexed by `key - base`: eight bytes per key, no
/// hashing, and memory touched only as keys arrive (a table sized for 100,000 models is 4 MB
/// zeroed up front; the run is 800 KB, filled in as it grows). The run grows at its end only
/// while at least half of its slots hold a model.
///
/// Any other key goes to an open-addressing hash table with linear probing, specialized for
/// `Int64` keys: a multiplicative (Fibonacci) hash spreads them with one multiplication, where
/// `Dictionary` runs SipHash on every lookup. Removal shifts the following entries back, so there
/// are no tombstones and lookups stay short. A key is in the run or in the table, never both.
///
/// Both hold unmanaged object references, retained and released by the map itself, not
/// `any PersistentModel` existentials: an array of optional existentials (or of optional
/// references) is destroyed element by element through generic value witnesses, about 300
/// instructions per slot, empty ones included (a sixth of a 100,000-row fetch), where an array of
/// unmanaged references is plain memory. The existential is rebuilt on the way out by a conversion
/// made from the class of the first model stored (every model of an entity has its class), with a
/// checked cast for any other. The map cannot be copied, so each reference has one owner.
struct PrimaryKeyMap: ~Copyable {
    /// The run of keys `base ..< base + run.count`, by `key - base`.
    private var run: [Unmanaged<AnyObject>?] = []
    private var base: Int64 = 0
    /// The models in `run`.
    private var runCount = 0
    /// The hash table of the keys outside the run.
    private var keys: [Int64] = []
    private var slots: [Unmanaged<AnyObject>?] = []
    private var shift = 64
    /// The models in the hash table.
    private var tableCount = 0
    /// Rebuilds the existential of a stored object.
    private var model: ModelConversion?

    init() {}

    deinit {
        for slot in run { slot?.release() }
        for slot in slots { slot?.release() }
    }

    /// The number of registered models.
    var count: Int { runCount + tableCount }

    var isEmpty: Bool { count == 0 }

    /// The registered models, in no particular order.
    var values: [any PersistentModel] {
        guard let model else { return [] }
        var values: [any PersistentModel] = []
        values.reserveCapacity(count)
        for slot in run { if let slot, let value = model.convert(slot.takeUnretainedValue()) { values.append(value) } }
        for slot in slots { if let slot, let value = model.convert(slot.takeUnretainedValue()) { values.append(value) } }
        return values
    }

    subscript(key: Int64) -> (any PersistentModel)? {
        get {
            guard let model, let object = object(forKey: key) else { return nil }
            return model.convert(object)
        }
        set {
            if let newValue { _ = insert(newValue, for: key) } else { _ = remove(key) }
        }
    }

    /// The model of class `M` registered for `key`, without building an existential on the way:
    /// for callers that know the model's class (a relationship's destination, once per row).
    func model<M: PersistentModel>(_ type: M.Type, forKey key: Int64) -> M? {
        guard let object = object(forKey: key) else { return nil }
        if Swift.type(of: object) == M.self { return unsafeDowncast(object, to: M.self) }
        return object as? M
    }

    /// The object registered for `key`.
    private func object(forKey key: Int64) -> AnyObject? {
        if let offset = runOffset(of: key), let object = run[offset] { return object.takeUnretainedValue() }
        guard tableCount > 0 else { return nil }
        var index = slot(for: key)
        while let object = slots[index] {
            if keys[index] == key { return object.takeUnretainedValue() }
            index = (index + 1) & (slots.count - 1)
        }
        return nil
    }

    /// The position of `key` in the run, or `nil` when the run does not cover it.
    private func runOffset(of key: Int64) -> Int? {
        let (offset, overflow) = key.subtractingReportingOverflow(base)
        guard !overflow, offset >= 0, offset < run.count else { return nil }
        return Int(offset)
    }

    /// Makes room for `capacity` models without growing again, as long as their keys continue
    /// the run (the keys of a save's new rows, of a fetch's rows). Only address space: no memory
    /// is touched before models arrive. The run at least doubles when it grows, so that saves of
    /// one new model each do not copy it every time.
    mutating func reserveCapacity(_ capacity: Int) {
        let wanted = run.count + max(capacity - count, 0)
        if wanted > run.capacity { run.reserveCapacity(max(wanted, 2 * run.capacity)) }
    }

    /// Whether `key` (not in the run) goes at the run's end: the run is empty (the key starts
    /// it), or the key follows the run closely enough that at least half of the longer run still
    /// holds models.
    private func extendsRun(_ key: Int64) -> Bool {
        if run.isEmpty { return true }
        let (offset, overflow) = key.subtractingReportingOverflow(base)
        guard !overflow, offset >= Int64(run.count) else { return false }
        return offset < Int64(2 * (runCount + 1) + 16)
    }

    /// Puts `object` at the run's end for `key` (``extendsRun(_:)`` said yes).
    private mutating func appendToRun(_ object: Unmanaged<AnyObject>, for key: Int64) {
        if run.isEmpty { base = key }
        let offset = Int(key &- base)
        if offset > run.count { run.append(contentsOf: repeatElement(nil, count: offset - run.count)) }
        run.append(object)
        runCount += 1
    }

    /// Registers `newModel` for `key`; returns the model it replaces, released once the caller's
    /// change of the map is over.
    mutating func insert(_ newModel: any PersistentModel, for key: Int64) -> DisplacedModel {
        if model == nil { model = ModelConversion(newModel) }
        let retained = Unmanaged<AnyObject>.passRetained(newModel)
        return place(retained, for: key)
    }

    /// Appends a retained object to the run when `key` is the one right after it and the table
    /// is empty (so the key is nowhere yet): the common case, a save's new rows or a fetch's rows
    /// in key order, checked before any other.
    @inline(__always)
    private mutating func appendIfNext(_ retained: Unmanaged<AnyObject>, for key: Int64) -> Bool {
        guard tableCount == 0, !run.isEmpty, key > base, key &- base == Int64(run.count) else { return false }
        run.append(retained)
        runCount += 1
        return true
    }

    /// Stores a retained object for `key`; returns the object it replaces.
    private mutating func place(_ retained: Unmanaged<AnyObject>, for key: Int64) -> DisplacedModel {
        if appendIfNext(retained, for: key) { return DisplacedModel(nil) }
        if let offset = runOffset(of: key) {
            if let existing = run[offset] {
                run[offset] = retained
                return DisplacedModel(existing)
            }
            // A key the run covers may still be in the table, from before the run reached it.
            if tableCount == 0 || !tableHolds(key) {
                run[offset] = retained
                runCount += 1
                return DisplacedModel(nil)
            }
        } else if extendsRun(key), tableCount == 0 || !tableHolds(key) {
            appendToRun(retained, for: key)
            return DisplacedModel(nil)
        }
        return placeInTable(retained, for: key)
    }

    /// Whether the hash table holds `key`.
    private func tableHolds(_ key: Int64) -> Bool {
        var index = slot(for: key)
        while slots[index] != nil {
            if keys[index] == key { return true }
            index = (index + 1) & (slots.count - 1)
        }
        return false
    }

    /// Stores a retained object for `key` in the hash table; returns the object it replaces.
    private mutating func placeInTable(_ retained: Unmanaged<AnyObject>, for key: Int64) -> DisplacedModel {
        if (tableCount + 1) * 4 > slots.count * 3 { growTable(toHold: tableCount + 1) }
        var index = slot(for: key)
        while let existing = slots[index] {
            if keys[index] == key {
                slots[index] = retained
                return DisplacedModel(existing)
            }
            index = (index + 1) & (slots.count - 1)
        }
        keys[index] = key
        slots[index] = retained
        tableCount += 1
        return DisplacedModel(nil)
    }

    /// Registers each of `models` (of class `type`) for the key at the same position in
    /// `newKeys`: the models a fetch made for rows the map held none of. A model replaced (a store
    /// that gave a key twice) is released at once; it is one of `models`, which the caller still
    /// holds, so no model's `deinit` runs while the map changes.
    mutating func insertAll(_ models: [AnyObject], forKeys newKeys: [Int64], of type: any PersistentModel.Type) {
        guard !models.isEmpty else { return }
        if model == nil { model = ModelConversion(for: type) }
        reserveCapacity(count + models.count)
        for position in 0..<Swift.min(models.count, newKeys.count) {
            let retained = Unmanaged<AnyObject>.passRetained(models[position])
            let key = newKeys[position]
            if !appendIfNext(retained, for: key) { _ = place(retained, for: key) }
        }
    }

    /// Forgets the model registered for `key`; returns it, released once the caller's change of
    /// the map is over.
    mutating func remove(_ key: Int64) -> DisplacedModel {
        if let offset = runOffset(of: key), let removed = run[offset] {
            run[offset] = nil
            runCount -= 1
            if runCount == 0 { run.removeAll() }
            return DisplacedModel(removed)
        }
        guard tableCount > 0 else { return DisplacedModel(nil) }
        let mask = slots.count - 1
        var index = slot(for: key)
        while slots[index] != nil, keys[index] != key { index = (index + 1) & mask }
        guard let removed = slots[index] else { return DisplacedModel(nil) }
        slots[index] = nil
        tableCount -= 1
        // Shift back each following entry whose home slot is at or before the hole.
        var hole = index
        var next = (index + 1) & mask
        while slots[next] != nil {
            let home = slot(for: keys[next])
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToNext {
                keys[hole] = keys[next]
                slots[hole] = slots[next]
                slots[next] = nil
                hole = next
            }
            next = (next + 1) & mask
        }
        return DisplacedModel(removed)
    }

    /// The home slot of a key: the key's block of eight consecutive keys is spread over the table
    /// by a multiplicative hash, and the key keeps its place within the block, so that keys near
    /// each other share a cache line of the table; strided keys are spread as well as whole keys
    /// were, since blocks are.
    private func slot(for key: Int64) -> Int {
        Self.slot(for: key, shift: shift)
    }

    /// The home slot of a key in a table of `1 << (64 - shift)` slots (see ``slot(for:)``).
    private static func slot(for key: Int64, shift: Int) -> Int {
        let bits = UInt64(bitPattern: key)
        let block = ((bits >> 3) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift + 3)
        return Int(truncatingIfNeeded: block << 3 | bits & 7)
    }

    /// Grows the hash table to hold `capacity` keys at most three quarters full.
    private mutating func growTable(toHold capacity: Int) {
        var size = max(slots.count, 16)
        while capacity * 4 > size * 3 { size *= 2 }
        guard size != slots.count else { return }
        let oldKeys = keys
        let oldSlots = slots
        keys = Array(repeating: 0, count: size)
        slots = Array(repeating: nil, count: size)
        shift = 64 - size.trailingZeroBitCount
        let mask = size - 1
        // Each reference moves from the old table to the new one, keeping its retain, with no
        // duplicate check (the keys are distinct).
        for index in oldSlots.indices {
            guard let object = oldSlots[index] else { continue }
            let key = oldKeys[index]
            var target = slot(for: key)
            while slots[target] != nil { target = (target + 1) & mask }
            keys[target] = key
            slots[target] = object
        }
    }
}

/// A model the map no longer holds, released when this value goes: after the statement that
/// changed the map, so that a model's `deinit` that looks the map up finds it in a consistent
/// state and outside the change's exclusive access.
struct DisplacedModel: ~Copyable {
    private let reference: Unmanaged<AnyObject>?

    init(_ reference: Unmanaged<AnyObject>?) { self.reference = reference }

    deinit { reference?.release() }
}

/// Rebuilds `any PersistentModel` from an object reference: an unconditional downcast for the
/// class it was made from (the entity's class), a checked cast for any other class.
private struct ModelConversion {
    let convert: (AnyObject) -> (any PersistentModel)?

    init(_ model: some PersistentModel) {
        convert = Self.converter(for: type(of: model))
    }

    /// The conversion for models of class `type`.
    init(for type: any PersistentModel.Type) {
        convert = Self.converter(for: type)
    }

    private static func converter<M: PersistentModel>(for type: M.Type) -> (AnyObject) -> (any PersistentModel)? {
        { object in
            if Swift.type(of: object) == M.self { return unsafeDowncast(object, to: M.self) }
            return object as? any PersistentModel
        }
    }
}
