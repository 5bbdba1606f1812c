import Foundation

extension ModelContext {
    /// Returns the transactions of the container's stores' history that match a descriptor, in
    /// the order they were saved unless the descriptor sorts them.
    ///
    /// ```swift
    /// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
    /// for transaction in try context.fetchHistory(descriptor) { … }
    /// ```
    ///
    /// The predicate and sort run in Swift over the recorded transactions.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the predicate compares with a token
    ///   older than history that was deleted: the changes since that token are no longer all there.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        // Custom stores that adopt HistoryProviding answer for their own transaction type.
        let provided = try container.stores.compactMap { try $0.capabilities.providedHistory?.providedHistory(descriptor) }
        if !provided.isEmpty { return provided.flatMap { $0 } }
        return try matchingHistory(descriptor).map(\.transaction)
    }

    /// Deletes the transactions that match a descriptor from the history of the container's
    /// stores. Tokens older than the deleted transactions expire.
    ///
    /// A store synchronized by a `SyncEngine` keeps the transactions the server has not
    /// acknowledged yet, whatever the descriptor: they are the changes still to send.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        var provided = false
        for slot in container.stores { provided = try slot.capabilities.providedHistory?.deleteProvidedHistory(descriptor) == true || provided }
        if provided { return }
        let matching = try matchingHistory(descriptor)
        for slot in container.stores {
            var ids = matching.filter { $0.store === slot.store }.map(\.id)
            if let records = slot.store as? any CompanionRecordStore, let floor = try HistoryRetention.keptAfter(in: records) {
                ids = ids.filter { $0 <= floor }
            }
            try slot.capabilities.history?.deleteHistory(transactions: ids)
        }
    }

    /// The transactions a descriptor selects, each with its store and number.
    private func matchingHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [(transaction: T, store: any StoreBackend, id: Int64)] {
        guard T.self == DefaultHistoryTransaction.self else {
            throw SwiftDataError(.storeFailure, reason: "OpenSwiftData's stores record DefaultHistoryTransaction; \(T.self) is not one")
        }
        if let predicate = descriptor.predicate { try checkTokens(in: predicate) }
        var all: [(transaction: T, store: any StoreBackend, id: Int64)] = []
        for slot in container.stores {
            for record in try slot.historyTransactions(after: 0) {
                guard let transaction = try transaction(record, store: slot.store.identifier, fields: slot.historyFieldLayouts) as? T else { continue }
                all.append((transaction, slot.store, record.id))
            }
        }
        if container.stores.count > 1 {
            all.sort { ($0.transaction.timestamp, $0.id) < ($1.transaction.timestamp, $1.id) }
        }
        if let predicate = descriptor.predicate {
            all = try all.filter { try predicate.evaluate($0.transaction) }
        }
        if !descriptor.sortBy.isEmpty {
            let sorted = all.map(\.transaction).sorted(using: descriptor.sortBy)
            let position = Dictionary(all.enumerated().map { ($1.transaction, $0) }, uniquingKeysWith: { first, _ in first })
            all = sorted.compactMap { position[$0].map { all[$0] } }
        }
        if let limit = descriptor.fetchLimit { all = Array(all.prefix(max(limit, 0))) }
        return all
    }

    /// Throws ``SwiftDataError/historyTokenExpired`` when the predicate holds a token of one of
    /// the container's stores older than history deleted from it. (The predicate's values are
    /// found by reflection: history fetches are not a hot path.)
    private func checkTokens<T>(in predicate: Predicate<T>) throws {
        let tokens = Self.tokens(in: predicate.expression)
        guard !tokens.isEmpty else { return }
        for slot in container.stores {
            let deletedThrough = try slot.historyDeletedThrough()
            guard deletedThrough > 0 else { continue }
            for token in tokens {
                if let value = token.tokenValue[slot.store.identifier], value < deletedThrough {
                    throw SwiftDataError(.historyTokenExpired, reason: "The token marks transaction \(value) of store \(slot.store.identifier), whose history up to \(deletedThrough) was deleted")
                }
            }
        }
    }

    private static func tokens(in value: Any) -> [DefaultHistoryToken] {
        if let token = value as? DefaultHistoryToken { return [token] }
        return Mirror(reflecting: value).children.flatMap { tokens(in: $0.value) }
    }

    /// A recorded transaction as SwiftData shows it.
    private func transaction(_ record: StoreHistoryTransaction, store: String, fields: HistoryFieldLayouts) throws -> DefaultHistoryTransaction {
        var changes: [HistoryChange] = []
        changes.reserveCapacity(record.changes.count)
        var location: _ModelLocation?
        for (position, change) in record.changes.enumerated() {
            // A change to a model the schema no longer has cannot be shown as one of its classes.
            guard let entity = container.schema.entitiesByName[change.entityName] else { continue }
            let changeLocation = _ModelLocation.reusing(location, entityName: change.entityName, storeIdentifier: store)
            location = changeLocation
            let id = PersistentIdentifier(location: changeLocation, key: .permanent(change.key))
            let mask = fields.mask(change.changedProperties, of: entity, recordedIn: record.id)
            changes.append(try Self.change(entity.modelType, change, mask: mask, id: id, changeIdentifier: record.id << 32 | Int64(position), transaction: record.id, entity: entity))
        }
        return DefaultHistoryTransaction(
            transactionIdentifier: record.id, token: DefaultHistoryToken(storeIdentifier: store, transaction: record.id),
            author: record.author, bundleIdentifier: record.bundleIdentifier, processIdentifier: record.processIdentifier,
            storeIdentifier: store, timestamp: record.timestamp, changes: changes)
    }

    private static func change<M: PersistentModel>(
        _ type: M.Type, _ change: StoreHistoryChange, mask: UInt64, id: PersistentIdentifier, changeIdentifier: Int64, transaction: Int64, entity: Schema.Entity
    ) throws -> HistoryChange {
        switch change.kind {
        case .insert:
            return .insert(DefaultHistoryInsert<M>(changeIdentifier: changeIdentifier, changedPersistentIdentifier: id, transactionIdentifier: transaction))
        case .update:
            let keyPaths = HistoryKeyPaths.of(M.self)
            let updated = keyPaths.indices.filter { $0 < 64 && mask & (1 << UInt64($0)) != 0 }.compactMap { keyPaths[$0] }
            return .update(DefaultHistoryUpdate<M>(changeIdentifier: changeIdentifier, changedPersistentIdentifier: id, transactionIdentifier: transaction, updatedAttributes: updated))
        case .delete:
            let keyPaths = HistoryKeyPaths.of(M.self)
            var values: [HistoryTombstone<M>.Element] = []
            for (index, field) in entity.fields.enumerated() where index < keyPaths.count {
                guard let keyPath = keyPaths[index], let stored = change.preservedValues[field.name],
                      let value = try HistoryKeyPaths.value(stored, of: field, entity: entity.name) else { continue }
                values.append((keyPath, value))
            }
            return .delete(DefaultHistoryDelete<M>(changeIdentifier: changeIdentifier, changedPersistentIdentifier: id, transactionIdentifier: transaction, tombstone: HistoryTombstone(values: values)))
        }
    }
}

/// The key paths and values history shows for a model class's properties.
enum HistoryKeyPaths {
    /// The key paths of a model class's persisted properties, rooted at the class, by property index.
    static func of<M: PersistentModel>(_ type: M.Type) -> [(any PartialKeyPath<M> & Sendable)?] {
        let inherited = M._osdInheritedKeyPaths
        let all = inherited + M.schemaMetadata.dropFirst(inherited.count).map(\.keypath)
        var keyPaths: [(any PartialKeyPath<M> & Sendable)?] = []
        for keyPath in all { keyPaths.append((keyPath as? PartialKeyPath<M>).map { sendable($0) }) }
        return keyPaths
    }

    /// A key path of a model's persisted property as the `Sendable` key path history shows.
    /// Key paths are immutable values, and the ones `@Model` records are literals, which Swift
    /// treats as `Sendable`; the class `PartialKeyPath` does not say so itself.
    private static func sendable<M>(_ keyPath: PartialKeyPath<M>) -> any PartialKeyPath<M> & Sendable {
        unsafeBitCast(keyPath, to: (any PartialKeyPath<M> & Sendable).self)
    }

    /// A preserved value as the attribute's Swift type (JSON text for `Codable` composites, the
    /// transformer's `Data` for a `.transformable(by:)` value that is not `Codable`).
    static func value(_ stored: SnapshotValue, of field: Schema.Entity.Field, entity: String) throws -> (any Sendable)? {
        if case .null = stored { return nil }
        guard let scalar = field.attribute?.valueType as? any _PersistentScalar.Type else {
            if case .json(let text) = stored { return text }
            if case .bytes(let data) = stored { return data }
            return nil
        }
        func read<T: _PersistentScalar>(_ type: T.Type) throws -> any Sendable {
            try T._osdRead(from: SnapshotRow(columns: [stored], _context: (entity, field.name)), 0)
        }
        return try read(scalar)
    }
}
