import Foundation

/// The history record format every store writes, store-neutral: the changes one save makes,
/// gathered while it writes, then recorded as one history transaction (see docs/StorageLayout.md).
package struct HistoryLog {
    private struct Run {
        let kind: StoreHistoryChange.Kind
        let entityName: String
        var keys: [Int64] = []
        var masks: [Int64] = []
        /// The preserved values of deleted rows, aligned with `keys`; empty while no row of the
        /// run has any (the common case, which then costs nothing per key).
        var tombstones: [[String: SnapshotValue]] = []
    }

    package init() {}

    /// The process's identity in the history: its bundle identifier (or executable name) and id.
    /// (Without NUL characters, which no SQL text can hold.)
    package static let processIdentity: (bundle: String, process: String) = {
        let info = ProcessInfo.processInfo
        let bundle = Bundle.main.bundleIdentifier ?? info.processName
        return (bundle.replacingOccurrences(of: "\0", with: ""), String(info.processIdentifier))
    }()

    private var inserted: [Run] = []
    private var updated: [Run] = []
    private var deleted: [Run] = []
    /// Whether a row may have more than one update (see ``updateByStore(_:key:mask:)``).
    private var updatesMayRepeat = false
    package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Records an insert. Called once per new row: a run of one entity appends to one array.
    package mutating func insert(_ entity: Schema.Entity, key: Int64) {
        insert(entityName: entity.name, key: key)
    }

    /// Records an insert into the entity named `entityName`.
    package mutating func insert(entityName: String, key: Int64) {
        let last = Self.run(in: &inserted, .insert, entityName)
        inserted[last].keys.append(key)
    }

    /// Records the inserts of rows written in the order of `entities`, each with the key at the
    /// same position of `keys`, leaving out the positions in `skipped` (ascending: rows not
    /// inserted, or not yet). A save of one entity's rows records them as one run that shares the
    /// keys' storage, without an append per row.
    package mutating func insert(_ entities: some Collection<Schema.Entity>, keys: [Int64], skipping skipped: [Int]) {
        guard let first = entities.first else { return }
        if skipped.isEmpty, entities.count == keys.count, entities.allSatisfy({ $0 === first }) {
            return insert(first, keys: keys)
        }
        var next = skipped.startIndex
        for (position, entity) in zip(keys.indices, entities) {
            if next < skipped.endIndex, skipped[next] == position {
                next += 1
                continue
            }
            insert(entityName: entity.name, key: keys[position])
        }
    }

    /// Records the inserts of rows of one entity, written in the order of `keys`: one run that
    /// shares the keys' storage.
    package mutating func insert(_ entity: Schema.Entity, keys: [Int64]) {
        guard !keys.isEmpty else { return }
        let last = Self.run(in: &inserted, .insert, entity.name)
        if inserted[last].keys.isEmpty { inserted[last].keys = keys } else { inserted[last].keys.append(contentsOf: keys) }
    }

    /// Records an update of the properties in `mask`, one the context made (at most one per row).
    package mutating func update(_ entity: Schema.Entity, key: Int64, mask: UInt64) {
        let last = Self.run(in: &updated, .update, entity.name)
        updated[last].keys.append(key)
        updated[last].masks.append(Int64(bitPattern: mask))
    }

    /// Records updates of the properties in `mask` of rows of one entity that the store made on its
    /// own (an update by predicate). With `mayRepeat`, the same save may update those rows
    /// otherwise too, and the history merges their records.
    package mutating func update(_ entity: Schema.Entity, keys: [Int64], mask: UInt64, mayRepeat: Bool) {
        guard !keys.isEmpty else { return }
        let last = Self.run(in: &updated, .update, entity.name)
        // A new run shares the keys' storage instead of copying them.
        if updated[last].keys.isEmpty { updated[last].keys = keys } else { updated[last].keys.append(contentsOf: keys) }
        updated[last].masks.append(contentsOf: repeatElement(Int64(bitPattern: mask), count: keys.count))
        if mayRepeat { updatesMayRepeat = true }
    }

    /// Records an update the store made on its own: an upsert, or a relationship nullified because
    /// the row it named was deleted. The row may be updated again by the same save.
    package mutating func updateByStore(_ entity: Schema.Entity, key: Int64, mask: UInt64) {
        update(entity, key: key, mask: mask)
        updatesMayRepeat = true
    }

    /// Records the deletion of a row, with the values of its `.preserveValueOnDeletion`
    /// attributes.
    package mutating func delete(_ entity: Schema.Entity, key: Int64, preserved: [String: SnapshotValue]?) {
        let last = Self.run(in: &deleted, .delete, entity.name)
        deleted[last].keys.append(key)
        Self.align(&deleted[last], preserved: preserved)
    }

    /// Records the deletion of rows of one entity, with the preserved values of those that have
    /// any, by key.
    package mutating func delete(_ entity: Schema.Entity, keys: [Int64], preserved: [Int64: [String: SnapshotValue]]) {
        guard !keys.isEmpty else { return }
        let last = Self.run(in: &deleted, .delete, entity.name)
        guard !preserved.isEmpty else {
            // A new run shares the keys' storage instead of copying them.
            if deleted[last].keys.isEmpty { deleted[last].keys = keys } else { deleted[last].keys.append(contentsOf: keys) }
            if !deleted[last].tombstones.isEmpty {
                deleted[last].tombstones.append(contentsOf: repeatElement([:], count: keys.count))
            }
            return
        }
        for key in keys {
            deleted[last].keys.append(key)
            Self.align(&deleted[last], preserved: preserved[key])
        }
    }

    /// Keeps a run's tombstones aligned with its keys once any row has preserved values: the
    /// earlier rows' entries are filled in as empty the first time.
    private static func align(_ run: inout Run, preserved: [String: SnapshotValue]?) {
        if let preserved, !preserved.isEmpty {
            if run.tombstones.count < run.keys.count - 1 {
                run.tombstones.append(contentsOf: repeatElement([:], count: run.keys.count - 1 - run.tombstones.count))
            }
            run.tombstones.append(preserved)
        } else if !run.tombstones.isEmpty {
            run.tombstones.append([:])
        }
    }

    /// The position of the run a change of `entity` joins: the last one, or a new one.
    private static func run(in runs: inout [Run], _ kind: StoreHistoryChange.Kind, _ entityName: String) -> Int {
        if let last = runs.last, last.entityName == entityName { return runs.count - 1 }
        runs.append(Run(kind: kind, entityName: entityName))
        return runs.count - 1
    }

    /// The runs as one BLOB: per run, the kind (1 byte), the entity name's length and UTF-8 bytes,
    /// the number of keys, each key as the difference from the previous one, for an update one mask
    /// per key, and the preserved values' JSON length and text (0 for none). Numbers are LEB128
    /// varints (differences zigzag-encoded), so a run of consecutive keys takes a byte per key.
    package func encoded() throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for run in inserted { try Self.append(run, to: &bytes) }
        for run in recordedUpdates() { try Self.append(run, to: &bytes) }
        for run in deleted { try Self.append(run, to: &bytes) }
        return bytes
    }

    /// The updates a transaction shows: one per row, with the properties of all of the save's
    /// updates of it, and none of a row the save inserted or deleted (its insertion or deletion
    /// says it all: an upsert onto a row inserted earlier in the save, a change to a model its
    /// own save deleted by rule or by predicate).
    private func recordedUpdates() -> [Run] {
        guard !updated.isEmpty, updatesMayRepeat || !inserted.isEmpty || !deleted.isEmpty else { return updated }
        var settled: [String: Set<Int64>] = [:]
        for run in inserted { settled[run.entityName, default: []].formUnion(run.keys) }
        for run in deleted { settled[run.entityName, default: []].formUnion(run.keys) }
        var runs: [Run] = []
        // Where each row's update went: the run and the position in it.
        var recorded: [String: [Int64: (run: Int, position: Int)]] = [:]
        for run in updated {
            let skipped = settled[run.entityName] ?? []
            var rows = recorded[run.entityName] ?? [:]
            var kept = Run(kind: .update, entityName: run.entityName)
            for (key, mask) in zip(run.keys, run.masks) where !skipped.contains(key) {
                if let (earlier, position) = rows[key] {
                    if earlier == runs.count { kept.masks[position] |= mask } else { runs[earlier].masks[position] |= mask }
                    continue
                }
                rows[key] = (runs.count, kept.keys.count)
                kept.keys.append(key)
                kept.masks.append(mask)
            }
            recorded[run.entityName] = rows
            if !kept.keys.isEmpty { runs.append(kept) }
        }
        return runs
    }

    /// The record of one update of the properties in `mask` of a row of `entityName`, split where
    /// the row's key goes: for a store that learns the key as it writes (an upsert in one
    /// statement) and places it, a zigzag-encoded LEB128 varint, between the two.
    package static func oneUpdate(entityName: String, mask: UInt64) -> (beforeKey: [UInt8], afterKey: [UInt8]) {
        var before: [UInt8] = [UInt8(StoreHistoryChange.Kind.update.rawValue)]
        var name = entityName
        name.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), to: &before)
            before.append(contentsOf: utf8)
        }
        appendVarint(1, to: &before)
        var after: [UInt8] = []
        appendVarint(mask, to: &after)
        after.append(0)
        return (before, after)
    }

    private static func append(_ run: Run, to bytes: inout [UInt8]) throws {
        bytes.append(UInt8(run.kind.rawValue))
        var name = run.entityName
        name.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
        appendVarint(UInt64(run.keys.count), to: &bytes)
        bytes.reserveCapacity(bytes.count + run.keys.count * (run.kind == .update ? 3 : 1))
        var previous: Int64 = 0
        for key in run.keys {
            let difference = key &- previous
            appendVarint(UInt64(bitPattern: (difference << 1) ^ (difference >> 63)), to: &bytes)
            previous = key
        }
        if run.kind == .update {
            for mask in run.masks { appendVarint(UInt64(bitPattern: mask), to: &bytes) }
        }
        if run.tombstones.isEmpty {
            bytes.append(0)
        } else {
            let json = try JSONCoding.encoder().encode(run.tombstones)
            appendVarint(UInt64(json.count), to: &bytes)
            bytes.append(contentsOf: json)
        }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The changes of a BLOB that ``encoded()`` wrote, or `nil` when it is malformed (truncated,
    /// a kind it does not know, preserved values that are not the JSON it writes): whatever
    /// another program wrote there, the caller reports the transaction as unreadable.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> [StoreHistoryChange]? {
        var offset = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        func slice(_ count: UInt64) -> UnsafeRawBufferPointer? {
            guard count <= UInt64(bytes.count - offset) else { return nil }
            defer { offset += Int(count) }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(count))])
        }
        var changes: [StoreHistoryChange] = []
        while offset < bytes.count {
            guard let kind = StoreHistoryChange.Kind(rawValue: Int64(bytes[offset])) else { return nil }
            offset += 1
            guard let nameLength = varint(), let name = slice(nameLength), let count = varint(),
                  count <= UInt64(bytes.count - offset) else { return nil }
            let entity = String(decoding: name, as: UTF8.self)
            var keys: [Int64] = []
            keys.reserveCapacity(Int(count))
            var previous: Int64 = 0
            for _ in 0..<count {
                guard let zigzag = varint() else { return nil }
                let difference = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
                previous = previous &+ difference
                keys.append(previous)
            }
            var masks: [UInt64] = []
            if kind == .update {
                for _ in 0..<count {
                    guard let mask = varint() else { return nil }
                    masks.append(mask)
                }
            }
            guard let jsonLength = varint(), let json = slice(jsonLength) else { return nil }
            var tombstones: [[String: SnapshotValue]] = []
            if jsonLength != 0 {
                do {
                    tombstones = try JSONCoding.decoder().decode([[String: SnapshotValue]].self, from: Data(json))
                } catch {
                    return nil
                }
            }
            for (position, key) in keys.enumerated() {
                changes.append(StoreHistoryChange(
                    kind: kind, entityName: entity, key: key,
                    changedProperties: position < masks.count ? masks[position] : 0,
                    preservedValues: position < tombstones.count ? tombstones[position] : [:]))
            }
        }
        return changes
    }
}
