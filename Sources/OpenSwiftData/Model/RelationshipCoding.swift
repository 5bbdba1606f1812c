/// The type-directed half of relationships: generated code calls these functions for every
/// persisted property, and overload resolution picks the relationship versions for properties
/// whose type is a model (`R`, `R?`) or an array of models (`[R]`, `[R]?`); for any other type the
/// generic version does nothing and compiles away. Not API.

// MARK: Row coding

extension _RowReader {
    /// Reads an optional to-one relationship: the model `context` has for the stored key, or a fault.
    public func _read<R: PersistentModel>(_ type: Optional<R>.Type, _ column: Int32, _ context: ModelContext) throws -> R? {
        if _isNull(column) { return nil }
        return try context.relatedModel(R.self, primaryKey: _int64(column))
    }

    /// Reads a non-optional to-one relationship.
    public func _read<R: PersistentModel>(_ type: R.Type, _ column: Int32, _ context: ModelContext) throws -> R {
        guard let model = try _read(Optional<R>.self, column, context) else {
            throw ValueCodingError.unexpectedNull(context: _context)
        }
        return model
    }

    /// A to-many relationship has no column: it stays unloaded until first accessed.
    public func _read<R: PersistentModel>(_ type: [R].Type, _ column: Int32, _ context: ModelContext) throws -> [R]? { nil }

    /// An optional to-many relationship has no column: it stays unloaded until first accessed.
    public func _read<R: PersistentModel>(_ type: [R]?.Type, _ column: Int32, _ context: ModelContext) throws -> [R]?? { nil }
}

extension _RowWriter {
    /// Writes the key of a to-one relationship's model. A model that is new in the same save gets
    /// its key later: NULL now, recorded in `links`, and the save links it once every new row has
    /// its key.
    public func _write<R: PersistentModel>(_ value: R?, _ column: Int32, _ links: _DeferredLinks) throws {
        // The keyless side of a one-to-one may have no parameter in the statement (the other
        // side's row holds the key); the save ignores its deferred link.
        guard _hasParameter(column) else { return }
        guard let value else { return try _bindNull(column) }
        let state = value._osdState
        if state.isDeleted || (state.context == nil && state.primaryKey != 0) {
            // The related model is being deleted: the store never keeps a key to a missing row.
            return try _bindNull(column)
        }
        if state.primaryKey == 0 {
            links.links.append((column, value))
            return try _bindNull(column)
        }
        try _bind(state.primaryKey, column)
    }

    /// Writes the key of a non-optional to-one relationship's model.
    public func _write<R: PersistentModel>(_ value: R, _ column: Int32, _ links: _DeferredLinks) throws {
        try _write(Optional(value), column, links)
    }

    /// A to-many relationship has no column; the save writes it from the other side or a link table.
    public func _write<R: PersistentModel>(_ value: [R], _ column: Int32, _ links: _DeferredLinks) throws {}

    /// An optional to-many relationship has no column.
    public func _write<R: PersistentModel>(_ value: [R]?, _ column: Int32, _ links: _DeferredLinks) throws {}
}

// MARK: Setters

// The relationship versions are inlinable so that they are specialized in the model's module: a
// generic function called across the module boundary pays a metadata look-up per call.

/// Called by every generated setter before it stores a new value; returns the value to store.
/// For an attribute, the new value as it is, after registering the change's undo when the
/// model's context has an undo manager.
@inlinable @inline(__always)
public func _osdWillSet<M: PersistentModel, T>(_ model: M, _ property: Int, _ old: @autoclosure () -> T?, _ new: T) -> T {
    if let reference = model._osdContextReference, reference.registersUndo { _osdRegisterUndo(model, property, T.self) }
    return new
}

/// Keeps the inverse of an optional to-one relationship consistent.
@inlinable
public func _osdWillSet<M: PersistentModel, R: PersistentModel>(_ model: M, _ property: Int, _ old: @autoclosure () -> R??, _ new: R?) -> R? {
    _ = RelationshipMaintenance.willSet(
        model, property: property, old: { old().map { $0.map { [$0] } ?? [] } }, new: new.map { [$0] } ?? [],
        model: { unsafeDowncast($0, to: R.self) })
    return new
}

/// Keeps the inverse of a non-optional to-one relationship consistent.
@inlinable
public func _osdWillSet<M: PersistentModel, R: PersistentModel>(_ model: M, _ property: Int, _ old: @autoclosure () -> R?, _ new: R) -> R {
    _ = RelationshipMaintenance.willSet(
        model, property: property, old: { old().map { [$0] } }, new: [new], model: { unsafeDowncast($0, to: R.self) })
    return new
}

/// Keeps the inverse of a to-many relationship consistent. A model appears once in a to-many
/// relationship, as in SwiftData: a repeated one is dropped.
@inlinable
public func _osdWillSet<M: PersistentModel, R: PersistentModel>(_ model: M, _ property: Int, _ old: @autoclosure () -> [R]?, _ new: [R]) -> [R] {
    // Arrays of class references share one representation: no element is copied or cast.
    let stored = RelationshipMaintenance.willSet(
        model, property: property,
        old: {
            guard let value = old() else { return nil }
            return unsafeBitCast(value, to: [AnyObject].self)
        },
        new: unsafeBitCast(new, to: [AnyObject].self), model: { unsafeDowncast($0, to: R.self) })
    return unsafeBitCast(stored, to: [R].self)
}

/// Keeps the inverse of an optional to-many relationship consistent; a repeated model is dropped.
@inlinable
public func _osdWillSet<M: PersistentModel, R: PersistentModel>(_ model: M, _ property: Int, _ old: @autoclosure () -> [R]??, _ new: [R]?) -> [R]? {
    let stored = RelationshipMaintenance.willSet(
        model, property: property, old: { old().map { unsafeBitCast($0 ?? [], to: [AnyObject].self) } },
        new: unsafeBitCast(new ?? [], to: [AnyObject].self), model: { unsafeDowncast($0, to: R.self) })
    return new == nil && stored.isEmpty ? nil : unsafeBitCast(stored, to: [R].self)
}

// MARK: Raw relationship edits

/// An attribute is never related.
@inlinable
public func _osdRelate<T>(_ value: inout T, _ other: any PersistentModel, adding: Bool) -> (changed: Bool, displaced: (any PersistentModel)?) {
    (false, nil)
}

/// Points an optional to-one relationship at `other`, or away from it.
public func _osdRelate<R: PersistentModel>(_ value: inout R?, _ other: any PersistentModel, adding: Bool) -> (changed: Bool, displaced: (any PersistentModel)?) {
    guard let other = other as? R else { return (false, nil) }
    if adding {
        guard value !== other else { return (false, nil) }
        let displaced = value
        value = other
        return (true, displaced)
    }
    guard value === other else { return (false, nil) }
    value = nil
    return (true, nil)
}

/// Points a non-optional to-one relationship at `other`; removing leaves it as it is.
public func _osdRelate<R: PersistentModel>(_ value: inout R, _ other: any PersistentModel, adding: Bool) -> (changed: Bool, displaced: (any PersistentModel)?) {
    guard adding, let other = other as? R, value !== other else { return (false, nil) }
    let displaced = value
    value = other
    return (true, displaced)
}

/// Adds `other` to a to-many relationship once, or removes it.
public func _osdRelate<R: PersistentModel>(_ value: inout [R], _ other: any PersistentModel, adding: Bool) -> (changed: Bool, displaced: (any PersistentModel)?) {
    guard let other = other as? R else { return (false, nil) }
    if adding {
        if value.contains(where: { $0 === other }) { return (false, nil) }
        value.append(other)
        return (true, nil)
    }
    guard let position = value.firstIndex(where: { $0 === other }) else { return (false, nil) }
    value.remove(at: position)
    return (true, nil)
}

/// Adds `other` to an optional to-many relationship once, or removes it.
public func _osdRelate<R: PersistentModel>(_ value: inout [R]?, _ other: any PersistentModel, adding: Bool) -> (changed: Bool, displaced: (any PersistentModel)?) {
    var models = value ?? []
    let result = _osdRelate(&models, other, adding: adding)
    if result.changed { value = models }
    return result
}

// MARK: Loading

/// An attribute is never loaded as a relationship.
@inlinable
public func _osdRelatedValue<T>(_ models: [AnyObject], as type: T.Type) -> T? { nil }

/// The value of an optional to-one relationship loaded from the store.
public func _osdRelatedValue<R: PersistentModel>(_ models: [AnyObject], as type: R?.Type) -> R?? {
    .some(models.first.map { unsafeDowncast($0, to: R.self) })
}

/// The value of a non-optional to-one relationship loaded from the store.
public func _osdRelatedValue<R: PersistentModel>(_ models: [AnyObject], as type: R.Type) -> R? {
    models.first.map { unsafeDowncast($0, to: R.self) }
}

/// The value of a to-many relationship loaded from the store.
public func _osdRelatedValue<R: PersistentModel>(_ models: [AnyObject], as type: [R].Type) -> [R]? {
    // Every element is an `R`, and arrays of class references share one representation.
    unsafeBitCast(models, to: [R].self)
}

/// The value of an optional to-many relationship loaded from the store.
public func _osdRelatedValue<R: PersistentModel>(_ models: [AnyObject], as type: [R]?.Type) -> [R]?? {
    .some(unsafeBitCast(models, to: [R].self))
}

// MARK: Visiting

/// An attribute holds no models.
@inlinable
public func _osdVisit<T>(_ value: T, _ body: (any PersistentModel) throws -> Void) rethrows {}

/// Visits the model of an optional to-one relationship.
public func _osdVisit<R: PersistentModel>(_ value: R?, _ body: (any PersistentModel) throws -> Void) rethrows {
    if let value { try body(value) }
}

/// Visits the model of a non-optional to-one relationship.
public func _osdVisit<R: PersistentModel>(_ value: R, _ body: (any PersistentModel) throws -> Void) rethrows {
    try body(value)
}

/// Visits the models of a to-many relationship.
public func _osdVisit<R: PersistentModel>(_ value: [R], _ body: (any PersistentModel) throws -> Void) rethrows {
    for model in value { try body(model) }
}

/// Visits the models of an optional to-many relationship.
public func _osdVisit<R: PersistentModel>(_ value: [R]?, _ body: (any PersistentModel) throws -> Void) rethrows {
    for model in value ?? [] { try body(model) }
}
