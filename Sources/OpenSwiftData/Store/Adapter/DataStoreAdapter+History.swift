extension DataStoreAdapter {
    /// The history of a custom store that adopts ``HistoryProviding``, for descriptors of its
    /// transaction type.
    func providedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]? {
        guard let provider = store as? any HistoryProviding else { return nil }
        return try withStoreLock { try Self.fetch(descriptor, from: provider) }
    }

    func deleteProvidedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool {
        guard let provider = store as? any HistoryProviding else { return false }
        return try withStoreLock { try Self.delete(descriptor, from: provider) }
    }

    private static func fetch<T, P: HistoryProviding>(_ descriptor: HistoryDescriptor<T>, from provider: P) throws -> [T]? {
        guard let own = descriptor as? HistoryDescriptor<P.HistoryType> else { return nil }
        return try provider.fetchHistory(own) as? [T]
    }

    private static func delete<T, P: HistoryProviding>(_ descriptor: HistoryDescriptor<T>, from provider: P) throws -> Bool {
        guard let own = descriptor as? HistoryDescriptor<P.HistoryType> else { return false }
        try provider.deleteHistory(own)
        return true
    }
}
