/// The identity map of one entity: registered models by primary key.
///
/// An open-addressing hash table with linear probing, specialized for `Int64` keys. Primary keys
/// are mostly dense ascending integers, so a multiplicative (Fibonacci) hash spreads them well and
/// costs one multiplication, where `Dictionary` runs SipHash on every lookup. Removal shifts the
/// following entries back, so there are no tombstones and lookups stay short.
///
/// The table holds unmanaged object references, retained and released by the map itself, not
/// `any PersistentModel` existentials: an array of optional existentials (or of optional
/// references) is destroyed element by element through generic value witnesses, about 300
/// instructions per slot, empty ones included (a sixth of a 100,000-row fetch), where an array of
/// unmanaged references is plain memory. The existential is rebuilt on the way out by a conversion
/// made from the class of the first model stored (every model of an entity has its class), with a
/// checked cast for any other. The map cannot be copied, so each reference has one owner.
struct PrimaryKeyMap: ~Copyable {
    private var keys: [Int64] = []
    private var slots: [Unmanaged<AnyObject>?] = []
    private var shift = 64
    /// Rebuilds the existential of a stored object.
    private var model: ModelConversion?
    /// The number of registered models.
    private(set) var count = 0

    init() {}

    deinit {
        for slot in slots { slot?.release() }
    }

    var isEmpty: Bool { count == 0 }

    /// The registered models, in no particular order.
    var values: [any PersistentModel] {
        guard let model else { return [] }
        return slots.compactMap { $0.flatMap { model.convert($0.takeUnretainedValue()) } }
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
        guard count > 0 else { return nil }
        var index = slot(for: key)
        while let object = slots[index] {
            if keys[index] == key { return object.takeUnretainedValue() }
            index = (index + 1) & (slots.count - 1)
        }
        return nil
    }

    /// Makes room for `capacity` models without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = max(slots.count, 16)
        while capacity * 4 > size * 3 { size *= 2 }
        if size != slots.count { rehash(size: size) }
    }

    /// The home slot of a key: the key's block of eight consecutive keys is spread over the table
    /// by a multiplicative hash, and the key keeps its place within the block. A fetch registers
    /// rows in ascending key order, so eight models in a row share a cache line of the table
    /// instead of each landing on a line of its own (at a million rows, the table is 32 MB);
    /// strided keys are spread as well as whole keys were, since blocks are.
    private func slot(for key: Int64) -> Int {
        Self.slot(for: key, shift: shift)
    }

    /// The home slot of a key in a table of `1 << (64 - shift)` slots (see ``slot(for:)``).
    private static func slot(for key: Int64, shift: Int) -> Int {
        let bits = UInt64(bitPattern: key)
        let block = ((bits >> 3) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift + 3)
        return Int(truncatingIfNeeded: block << 3 | bits & 7)
    }

    /// Registers `newModel` for `key`; returns the model it replaces, released once the caller's
    /// change of the map is over.
    mutating func insert(_ newModel: any PersistentModel, for key: Int64) -> DisplacedModel {
        if model == nil { model = ModelConversion(newModel) }
        if (count + 1) * 4 > slots.count * 3 { reserveCapacity(count + 1) }
        let retained = Unmanaged<AnyObject>.passRetained(newModel)
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
        count += 1
        return DisplacedModel(nil)
    }

    /// Registers each of `models` (of class `type`) for the key at the same position in
    /// `newKeys`, growing the table once: the models a fetch made for rows the map held none of. A
    /// model replaced (a store that gave a key twice) is released at once; it is one of `models`,
    /// which the caller still holds, so no model's `deinit` runs while the map changes.
    mutating func insertAll(_ models: [AnyObject], forKeys newKeys: [Int64], of type: any PersistentModel.Type) {
        guard !models.isEmpty else { return }
        if model == nil { model = ModelConversion(for: type) }
        reserveCapacity(count + models.count)
        let shift = shift
        var added = 0
        keys.withUnsafeMutableBufferPointer { keys in
            slots.withUnsafeMutableBufferPointer { slots in
                let mask = slots.count - 1
                for position in 0..<Swift.min(models.count, newKeys.count) {
                    let key = newKeys[position]
                    let retained = Unmanaged<AnyObject>.passRetained(models[position])
                    var index = Self.slot(for: key, shift: shift)
                    while slots[index] != nil, keys[index] != key { index = (index + 1) & mask }
                    if let replaced = slots[index] {
                        slots[index] = retained
                        replaced.release()
                    } else {
                        keys[index] = key
                        slots[index] = retained
                        added += 1
                    }
                }
            }
        }
        count += added
    }

    /// Forgets the model registered for `key`; returns it, released once the caller's change of
    /// the map is over.
    mutating func remove(_ key: Int64) -> DisplacedModel {
        guard count > 0 else { return DisplacedModel(nil) }
        let mask = slots.count - 1
        var index = slot(for: key)
        while slots[index] != nil, keys[index] != key { index = (index + 1) & mask }
        guard let removed = slots[index] else { return DisplacedModel(nil) }
        slots[index] = nil
        count -= 1
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

    private mutating func rehash(size: Int) {
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
