/// A collection of fetch results that a context loads in batches as you access them.
///
/// Create one with ``ModelContext/fetch(_:batchSize:)`` (models) or
/// ``ModelContext/fetchIdentifiers(_:batchSize:)`` (identifiers). Only the matching rows' keys are
/// read up front; each batch of models is loaded on first access.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    private let elementCount: Int
    private let element: (Int) -> Element

    init(keys: [Int64], batchSize: Int, context: ModelContext, shape: RowShape) where Element: PersistentModel {
        let loader = BatchLoader<Element>(keys: keys, batchSize: batchSize, context: context, shape: shape)
        elementCount = keys.count
        element = { loader.model(at: $0) }
    }

    init(keys: [Int64], storeIdentifier: String, entityName: String) where Element == PersistentIdentifier {
        elementCount = keys.count
        let location = _ModelLocation(entityName: entityName, storeIdentifier: storeIdentifier)
        element = { PersistentIdentifier(location: location, key: .permanent(keys[$0])) }
    }

    init(_ elements: [Element]) {
        elementCount = elements.count
        element = { elements[$0] }
    }

    /// The position of the first element.
    public var startIndex: Int { 0 }
    /// The position after the last element.
    public var endIndex: Int { elementCount }

    /// The element at a position, loading its batch if needed.
    public subscript(position: Int) -> Element {
        element(position)
    }
}

/// Loads and keeps the batches of a ``FetchResultsCollection``.
final class BatchLoader<Element: PersistentModel> {
    let keys: [Int64]
    let batchSize: Int
    let context: ModelContext
    let shape: RowShape
    var entity: Schema.Entity { shape.entity }
    private var batches: [Int: [Element]] = [:]

    init(keys: [Int64], batchSize: Int, context: ModelContext, shape: RowShape) {
        self.keys = keys
        self.batchSize = batchSize
        self.context = context
        self.shape = shape
    }

    func model(at position: Int) -> Element {
        let batch = position / batchSize
        if let models = batches[batch] { return models[position - batch * batchSize] }
        let models = load(batch)
        batches = [batch: models]
        return models[position - batch * batchSize]
    }

    private func load(_ batch: Int) -> [Element] {
        let range = (batch * batchSize)..<min((batch + 1) * batchSize, keys.count)
        var loaded: [Int64: Element] = [:]
        do {
            // A model class with subclasses: a key is in one of the hierarchy's tables.
            for concrete in entity.concreteEntities {
                let missing = concrete === entity ? Array(keys[range]) : keys[range].filter { loaded[$0] == nil }
                if missing.isEmpty { break }
                let store = context.container.store(for: concrete)
                let shape = concrete === entity ? self.shape : try store.rowShape(of: concrete)
                let registered = context.registeredModels(of: concrete)
                try store.forEachRow(of: concrete, primaryKeys: missing) { row in
                    if let model = try context.materialize(row, shape: shape, attributes: nil, registered: registered) as? Element {
                        loaded[model._osdState.primaryKey] = model
                    }
                }
            }
        } catch {
            // A subscript cannot throw: the batch's models are faults that load on first access,
            // and the context's next fetch or save throws the error.
            context.deferReadFailure(error)
            Diagnostics.report("loading a batch of \(entity.name) failed: \(error); its models load on first access instead")
        }
        // A row not loaded (deleted since the keys were read, or a failed batch) becomes a fault of
        // the collection's entity, which is an `Element`; reading it then loads it or reports why not.
        let location = context.location(of: entity)
        return keys[range].map { key in
            if let model = loaded[key] { return model }
            let id = PersistentIdentifier(location: location, key: .permanent(key))
            return context.registeredModel(for: id) ?? context.makeFault(Element.self, primaryKey: key, entity: entity)
        }
    }
}
