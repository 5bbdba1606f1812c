extension ModelContext {
    /// Saves changes that belong to several stores: each store's part in one transaction of that
    /// store, in the order of the configurations. When a store's write fails, the parts already
    /// written stay written and are recorded as saved; the rest stays pending and the error is thrown.
    func saveAcrossStores(
        _ changes: StoreChanges, batchDeletedEntities: [Schema.Entity], filteredDeletes: [(Schema.Entity, [Int64])], in container: ModelContainer
    ) throws {
        let slots = container.stores
        func slot(_ entity: Schema.Entity) -> Int { container.slot(forEntityNamed: entity.name) }
        var empty = StoreChanges()
        empty.author = changes.author
        empty.editingStateID = changes.editingStateID
        empty.recordsHistory = changes.recordsHistory
        empty.origin = changes.origin
        var parts = Array(repeating: empty, count: slots.count)
        var positions = Array(repeating: [Int](), count: slots.count)
        for (position, insert) in changes.inserts.enumerated() {
            parts[slot(insert.entity)].inserts.append(insert)
            positions[slot(insert.entity)].append(position)
        }
        for update in changes.updates { parts[slot(update.entity)].updates.append(update) }
        for delete in changes.deletes { parts[slot(delete.entity)].deletes.append(delete) }
        for delete in changes.batchDeletes { parts[slot(delete.entity)].batchDeletes.append(delete) }
        for write in changes.linkWrites {
            parts[container.slot(forEntityNamed: write.link.entity)].linkWrites.append(write)
        }

        var keys = Array(repeating: Int64(0), count: changes.inserts.count)
        var upserted = Set<Int>()
        var batchDeleted: [(Schema.Entity, [Int64])] = []
        var committed = Set<Int>()
        var failure: (any Error)?
        for (index, part) in parts.enumerated() where !part.isEmpty {
            do {
                let result = try slots[index].store.save(part)
                for (local, key) in result.inserted.enumerated() { keys[positions[index][local]] = key }
                for local in result.upserted { upserted.insert(positions[index][local]) }
                batchDeleted += zip(part.batchDeletes.map(\.entity), result.batchDeleted).map { ($0, $1) }
                committed.insert(index)
            } catch {
                failure = error
                break
            }
        }
        if let failure, committed.isEmpty { throw failure }
        batchDeleted += filteredDeletes.filter { committed.contains(slot($0.0)) }

        // What was written is saved, whatever failed after it.
        var written = StoreChanges()
        var writtenKeys: [Int64] = []
        var writtenUpserts = Set<Int>()
        for (position, insert) in changes.inserts.enumerated() where committed.contains(slot(insert.entity)) {
            if upserted.contains(position) { writtenUpserts.insert(written.inserts.count) }
            written.inserts.append(insert)
            writtenKeys.append(keys[position])
        }
        written.updates = changes.updates.filter { committed.contains(slot($0.entity)) }
        written.deletes = changes.deletes.filter { committed.contains(slot($0.entity)) }
        written.batchDeletes = changes.batchDeletes.filter { committed.contains(slot($0.entity)) }
        didSave(changes: written, insertedKeys: writtenKeys, upserted: writtenUpserts, batchDeleted: batchDeleted,
                committedSlots: failure == nil ? nil : committed, in: container)
        let deletedEntities = Set(written.deletes.map(\.entity.name) + written.batchDeletes.map(\.entity.name))
        if !deletedEntities.isEmpty { forgetReferences(toDeletedModelsOf: deletedEntities) }
        if let failure { throw failure }
    }
}
