/// Where the `let` properties of a model being created get their stored values: a row being
/// decoded, or the store (for a model made before its row is read, such as a fault).
///
/// A `let` has no accessors and is set once, in an initializer, so `@Model`'s
/// `init(backingData:)` reads it from here while OpenSwiftData creates the model. Not API.
final class ConstantSource: @unchecked Sendable {
    // @unchecked Sendable: bound as a task-local only around the synchronous creation of one
    // model, in the isolation of the context that creates it.
    @TaskLocal static var current: ConstantSource?

    let context: ModelContext
    let entity: Schema.Entity
    let key: Int64
    /// The row being decoded and the properties it holds after the key, or `nil` for a fault.
    let row: (reader: StoreRow, properties: [Int])?
    /// The first value that could not be read.
    var failure: (any Error)?

    init(context: ModelContext, entity: Schema.Entity, key: Int64, row: (reader: StoreRow, properties: [Int])?) {
        self.context = context
        self.entity = entity
        self.key = key
        self.row = row
    }

    /// The stored value of a `let` property, read by `read` from the row being decoded or from
    /// the store; `nil` when the row is gone (the model is a fault of a deleted row, as any other
    /// model made from its identifier would be; nothing was misread).
    func value<T>(_ type: T.Type, property index: Int, read: (StoreRow, Int32) throws -> T) throws -> T? {
        func checked(_ row: StoreRow, column: Int32) throws -> T {
            if row._isNull(column), !(T.self is any _OptionalValue.Type) {
                throw SwiftDataError(.modelValidationFailure, reason: "The store holds no value for the non-optional \(entity.name).\(entity.fields[index].name) of row \(key)")
            }
            return try read(row, column)
        }
        if let row, let position = row.properties.firstIndex(of: index) {
            return try checked(row.reader, column: Int32(position + 1))
        }
        var value: T?
        let store = context.container.store(for: entity)
        _ = try store.loadAttribute(of: entity, primaryKey: key, attribute: index) { row in
            value = try checked(row, column: 0)
        }
        return value
    }

    /// Creates a model of the source's row, managed by its context at `location`, with this source
    /// bound; throws the first value that could not be read.
    static func make<M: PersistentModel>(_ type: M.Type, source: ConstantSource, location: _ModelLocation) throws -> M {
        let model = ConstantSource.$current.withValue(source) {
            M._osdMake(primaryKey: source.key, context: source.context.reference, location: location)
        }
        if let failure = source.failure { throw failure }
        return model
    }
}

/// The stored value of a `let` property of the model being created, or `placeholder` (zero,
/// empty, `nil`, the first case) when no store is at hand (a model made by `init(backingData:)`
/// outside a fetch), when the row is gone, or when the value cannot be read; a value that cannot
/// be read is then thrown by the fetch that creates the model, or by the context's next fetch or
/// save.
private func constant<T>(property index: Int, placeholder: @autoclosure () -> T, read: (StoreRow, Int32, ModelContext) throws -> T) -> T {
    guard let source = ConstantSource.current else { return placeholder() }
    do {
        return try source.value(T.self, property: index) { row, column in try read(row, column, source.context) } ?? placeholder()
    } catch {
        if source.failure == nil { source.failure = error }
        return placeholder()
    }
}

/// The value of a `let` of a standard value type (see `constant(property:placeholder:read:)`).
/// Called by generated code; not API.
public func _osdConstant<T: _PersistentScalar>(_ type: T.Type, property index: Int) -> T {
    constant(property: index, placeholder: T._osdPlaceholder) { row, column, context in try row._read(T.self, column, context) }
}

/// The value of a `let` of a `Codable` collection or optional, stored as JSON; its placeholder is
/// empty or `nil`. Called by generated code; not API.
public func _osdConstant<T: Codable & _PlaceholderValue>(_ type: T.Type, property index: Int) -> T {
    constant(property: index, placeholder: T._osdPlaceholderValue) { row, column, context in try row._read(T.self, column, context) }
}

/// The value of a `let` of a `Codable`, `CaseIterable` enum, stored as JSON; its placeholder is
/// the first case. Called by generated code; not API.
public func _osdConstant<T: Codable & CaseIterable>(_ type: T.Type, property index: Int) -> T {
    constant(property: index, placeholder: firstCase(of: T.self)) { row, column, context in try row._read(T.self, column, context) }
}

/// The value of a `.transformable(by:)` `let` of a standard value type, stored natively. Called by
/// generated code; not API.
public func _osdConstant<T: _PersistentScalar>(_ type: T.Type, property index: Int, transformedBy transformation: _ValueTransformation) -> T {
    _osdConstant(T.self, property: index)
}

/// The value of a `.transformable(by:)` `let` of a `Codable` collection or optional, stored as
/// JSON. Called by generated code; not API.
public func _osdConstant<T: Codable & _PlaceholderValue>(_ type: T.Type, property index: Int, transformedBy transformation: _ValueTransformation) -> T {
    _osdConstant(T.self, property: index)
}

/// The value of a `.transformable(by:)` `let` of a `Codable`, `CaseIterable` enum, stored as JSON.
/// Called by generated code; not API.
public func _osdConstant<T: Codable & CaseIterable>(_ type: T.Type, property index: Int, transformedBy transformation: _ValueTransformation) -> T {
    _osdConstant(T.self, property: index)
}

/// The value of a `.transformable(by:)` `let` of an optional that is not `Codable`, stored as
/// the bytes its transformer makes; its placeholder is `nil`. Called by generated code; not API.
public func _osdConstant<T: _PlaceholderValue>(_ type: T.Type, property index: Int, transformedBy transformation: _ValueTransformation) -> T {
    constant(property: index, placeholder: T._osdPlaceholderValue) { row, column, context in
        try row._read(T.self, column, context, transformedBy: transformation)
    }
}

/// The first case of an enum `let`'s type, its placeholder. An enum without cases has no values,
/// so no stored row holds one and no model with such a `let` exists to need it.
private func firstCase<T: CaseIterable>(of type: T.Type) -> T {
    guard let first = T.allCases.first else {
        preconditionFailure("OpenSwiftData: \(T.self) has no cases, so a model cannot hold one")
    }
    return first
}

/// Rejects `let` properties of types OpenSwiftData cannot give a placeholder, with a clear
/// compile-time message.
@available(*, unavailable, message: "A 'let' property of a model must be a standard value type (String, numbers, Bool, Date, Data, UUID, URL, Decimal), a Codable array, set, dictionary or optional, or a Codable CaseIterable enum; declare this one 'private(set) var'")
/// Unavailable, so never called: the body only satisfies the compiler.
public func _osdConstant<T>(_ type: T.Type, property index: Int) -> T { fatalError() }

/// Rejects `.transformable(by:)` `let` properties that have no placeholder, with a clear
/// compile-time message.
@available(*, unavailable, message: "A transformable 'let' property of a model must be optional, or a type a 'let' can be without the option; declare this one 'private(set) var'")
/// Unavailable, so never called: the body only satisfies the compiler.
public func _osdConstant<T>(_ type: T.Type, property index: Int, transformedBy transformation: _ValueTransformation) -> T { fatalError() }
