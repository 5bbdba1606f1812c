import Foundation

/// The results of one fetch descriptor in one context, kept current with the saves of the
/// context's container: its own, its sibling contexts', model actors', and other processes' once
/// the container has read them.
///
/// A save is followed from the rows it changed when the query allows it (``QueryPlan/isRowLocal(in:)``,
/// no page, no subclasses, no unsaved changes in the context): the changed rows leave the results,
/// the store says which of them match the predicate now, and those go back in at the place the
/// sort descriptors give them. Anything else (a limit or offset, a predicate or sort that reads
/// relationships or runs in Swift, a save too large to keep in detail) refetches. Either way the
/// results are those a fresh `fetch` of the descriptor returns.
final class LiveResults<Element: PersistentModel> {
    let context: ModelContext
    private(set) var descriptor: FetchDescriptor<Element>
    /// The results, in the descriptor's order, as class references: the per-model work of an
    /// update runs in code that is not generic, so that it costs the same in every module.
    private var objects: [AnyObject] = []
    /// The primary keys of `objects`, in the same order.
    private var keys: [Int64] = []
    /// The save-log generation the results reflect.
    private var generation: UInt64 = 0
    /// How many updates followed the saves row by row, and how many refetched (for tests).
    private(set) var updateCounts = (rowByRow: 0, refetched: 0)
    /// What following a save row by row needs, or `nil` when the query must refetch.
    private var rowLocal: RowLocalQuery?

    private struct RowLocalQuery {
        let entity: Schema.Entity
        let storeIdentifier: String
        let shape: RowShape
        let attributes: [Int]?
        /// The descriptor's filter, prepared to run over the changed rows' keys.
        let keyed: any KeyedFetch
    }

    /// The most rows one update follows one by one; a larger change refetches, which is cheaper.
    static var largestRowByRowChange: Int { 500 }

    init(descriptor: FetchDescriptor<Element>, context: ModelContext) throws {
        self.context = context
        self.descriptor = descriptor
        try replace(descriptor)
    }

    /// Takes a new descriptor and fetches its results.
    func replace(_ descriptor: FetchDescriptor<Element>) throws {
        // The generation is read before the fetch: a save in between is applied again by the next
        // update, which is harmless (an update is idempotent), where reading it after could miss it.
        let generation = context.container.saveLog.latestGeneration
        let models = try context.fetch(descriptor)
        self.rowLocal = try Self.rowLocalQuery(for: descriptor, in: context)
        self.descriptor = descriptor
        _ = replaceModels(with: models)
        self.generation = generation
    }

    /// The results, in the descriptor's order.
    var models: [Element] {
        // Every element is an `Element`, and an array of class references has the same
        // representation whatever the class.
        unsafeBitCast(objects, to: [Element].self)
    }

    /// What an update did to the results.
    enum Update {
        /// No save since the last update could change them.
        case untouched
        /// The same models in the same order, some of which may have changed.
        case sameModels
        /// Other models, or the same in another order.
        case changed
    }

    /// Brings the results up to date with the saves recorded since the last update.
    func update() throws -> Update {
        let (entries, latest) = context.container.saveLog.saves(after: generation)
        guard latest != generation else { return .untouched }
        if let rowLocal, let entries, let rows = Self.changedRows(in: entries, of: rowLocal) {
            if rows.touched.isEmpty {
                generation = latest   // nothing these results show was saved
                return .untouched
            }
            if rows.touched.count <= Self.largestRowByRowChange, let update = try following(rows, query: rowLocal) {
                generation = latest
                updateCounts.rowByRow += 1
                return update
            }
        }
        let models = try context.fetch(descriptor)
        generation = latest
        updateCounts.refetched += 1
        return replaceModels(with: models)
    }

    private func replaceModels(with next: [Element]) -> Update {
        let nextObjects = unsafeBitCast(next, to: [AnyObject].self)
        if haveSameIdentities(nextObjects, objects) { return .sameModels }
        objects = nextObjects
        keys = next.map { $0._osdState.primaryKey }
        return .changed
    }

    /// The rows of the query's entity that the saves changed: all of them, and those that may
    /// match now (inserted or updated). `nil` when a save is not kept in detail.
    private static func changedRows(in entries: ArraySlice<SaveLog.Entry>, of query: RowLocalQuery) -> (touched: Set<Int64>, candidates: [Int64])? {
        var touched = Set<Int64>()
        var candidates: [Int64] = []
        func keys(_ ids: [PersistentIdentifier]) -> [Int64] {
            ids.compactMap { id in
                id.entityName == query.entity.name && id.storeIdentifier == query.storeIdentifier ? id.primaryKey : nil
            }
        }
        for entry in entries {
            guard let inserted = entry.inserted, let updated = entry.updated, let deleted = entry.deleted else { return nil }
            for key in keys(inserted) + keys(updated) where touched.insert(key).inserted { candidates.append(key) }
            touched.formUnion(keys(deleted))
        }
        return (touched, candidates)
    }

    /// Updates the results from the given rows, or returns `nil` when they must be refetched.
    private func following(_ rows: (touched: Set<Int64>, candidates: [Int64]), query: RowLocalQuery) throws -> Update? {
        // The context merges the saves first, so that the models it holds read the saved values.
        context.mergeChangesFromOtherContexts(lookingOutside: false)
        try context.throwDeferredReadFailure()
        // Unsaved changes: the results include them (or must not see them), and the sort in Swift
        // would read them; the fetch knows how to handle both.
        if FetchQuery.hasPendingChanges(context, entity: query.entity) { return nil }
        var matching: [Element] = []
        if !rows.candidates.isEmpty {
            matching = try context.fetchModels(query.shape, keyed: query.keyed, keys: rows.candidates, attributes: query.attributes)
            if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
                try context.prefetch(descriptor.relationshipKeyPathsForPrefetching, of: matching, shape: query.shape)
            }
        }
        let shown = positions(of: rows.touched, in: keys)
        if matching.isEmpty && shown.isEmpty { return .untouched }
        var nextObjects = objects
        var nextKeys = keys
        remove(at: shown, from: &nextObjects, keys: &nextKeys)
        for model in matching {
            let index = insertionIndex(of: model, in: nextObjects)
            nextObjects.insert(model, at: index)
            nextKeys.insert(model._osdState.primaryKey, at: index)
        }
        if haveSameIdentities(nextObjects, objects) { return .sameModels }
        objects = nextObjects
        keys = nextKeys
        return .changed
    }

    /// Where `model` goes in `objects` (which are in the descriptor's order): after every model
    /// that sorts before it, ties in ``TieOrder``, as the store orders them.
    private func insertionIndex(of model: Element, in objects: [AnyObject]) -> Int {
        var low = 0
        var high = objects.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(unsafeDowncast(objects[middle], to: Element.self), model) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func precedes(_ lhs: Element, _ rhs: Element) -> Bool {
        for sort in descriptor.sortBy {
            switch Self.storeOrder(sort, lhs, rhs) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return TieOrder.precedes(lhs, rhs, in: TieOrder.order(after: descriptor.sortBy))
    }

    /// How the store orders two models by one sort descriptor: as Swift does, except for
    /// floating-point NaN, which Swift leaves unordered and the store puts after every number
    /// (before them in reverse order).
    private static func storeOrder(_ sort: SortDescriptor<Element>, _ lhs: Element, _ rhs: Element) -> ComparisonResult {
        if let keyPath = sort.keyPath,
           let left = floatingRank(lhs[keyPath: keyPath]), let right = floatingRank(rhs[keyPath: keyPath]),
           left == 2 || right == 2 {
            // nil (rank 0) before numbers (1) before NaN (2).
            let ascending = left == right ? ComparisonResult.orderedSame : left < right ? .orderedAscending : .orderedDescending
            guard sort.order == .reverse, ascending != .orderedSame else { return ascending }
            return ascending == .orderedAscending ? .orderedDescending : .orderedAscending
        }
        return sort.compare(lhs, rhs)
    }

    /// The store's rank of a floating-point sort value: 0 for `nil`, 1 for a number, 2 for NaN;
    /// `nil` for values of other types.
    private static func floatingRank(_ value: Any) -> Int? {
        if let double = value as? Double { return double.isNaN ? 2 : 1 }
        if let float = value as? Float { return float.isNaN ? 2 : 1 }
        if let optional = value as? Double?, optional == nil { return 0 }
        if let optional = value as? Float?, optional == nil { return 0 }
        return nil
    }

    private static func rowLocalQuery(for descriptor: FetchDescriptor<Element>, in context: ModelContext) throws -> RowLocalQuery? {
        guard descriptor.fetchLimit == nil, descriptor.fetchOffset == nil else { return nil }
        let query = try FetchQuery(descriptor, context: context)
        guard query.entity.descendants.isEmpty, query.plan.isRowLocal(in: query.entity) else { return nil }
        return RowLocalQuery(entity: query.entity, storeIdentifier: query.store.identifier,
                             shape: query.shape, attributes: query.attributes,
                             keyed: try query.store.keyedFetch(StoreFetch(entity: query.entity, filter: query.plan.filter), attributes: query.attributes))
    }
}

/// Whether both arrays hold the same objects in the same order.
private func haveSameIdentities(_ lhs: [AnyObject], _ rhs: [AnyObject]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for index in lhs.indices where lhs[index] !== rhs[index] { return false }
    return true
}

/// The positions in `keys` of the keys in `touched`, in ascending order.
private func positions(of touched: Set<Int64>, in keys: [Int64]) -> [Int] {
    var positions: [Int] = []
    if touched.count <= 8 {
        // A save changes few rows: comparing each key with a short list beats hashing it.
        let few = Array(touched)
        for index in keys.indices where few.contains(keys[index]) { positions.append(index) }
    } else {
        for index in keys.indices where touched.contains(keys[index]) { positions.append(index) }
    }
    return positions
}

/// Removes the elements at `positions` (ascending) from parallel arrays of objects and keys, in
/// one pass.
private func remove(at positions: [Int], from objects: inout [AnyObject], keys: inout [Int64]) {
    guard let first = positions.first else { return }
    var kept = first
    var next = 0
    for index in first..<keys.count {
        if next < positions.count, positions[next] == index {
            next += 1
            continue
        }
        keys[kept] = keys[index]
        objects[kept] = objects[index]
        kept += 1
    }
    keys.removeLast(keys.count - kept)
    objects.removeLast(objects.count - kept)
}
