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

    /// The stored value of a `let` property.
    func value<T: _PersistentScalar>(_ type: T.Type, property index: Int) throws -> T {
        if let row, let position = row.properties.firstIndex(of: index) {
            return try read(T.self, from: row.reader, column: Int32(position + 1), property: index)
        }
        var value: T?
        let store = context.container.store(for: entity)
        _ = try store.loadAttribute(of: entity, primaryKey: key, attribute: index) { row in
            value = try read(T.self, from: row, column: 0, property: index)
        }
        guard let value else {
            // The row is gone: the model is a fault of a deleted row, as any other model made from
            // its identifier would be; nothing was misread.
            return T._osdPlaceholder
        }
        return value
    }

    private func read<T: _PersistentScalar>(_ type: T.Type, from row: some _RowReader, column: Int32, property index: Int) throws -> T {
        if row._isNull(column), !(T.self is any _OptionalValue.Type) {
            throw SwiftDataError(.modelValidationFailure, reason: "The store holds no value for the non-optional \(entity.name).\(entity.fields[index].name) of row \(key)")
        }
        return try row._read(T.self, column, context)
    }

    /// Creates a model with this source bound, and throws the first value that could not be read.
    static func make<M: PersistentModel>(_ type: M.Type, source: ConstantSource) throws -> M {
        let model = ConstantSource.$current.withValue(source) { M._osdMake() }
        if let failure = source.failure { throw failure }
        return model
    }
}

/// The stored value of a `let` property of the model being created, or a placeholder (zero,
/// empty, `nil`) when no store is at hand (a model made by `init(backingData:)` outside a fetch)
/// or the value cannot be read; the failure is then thrown by the fetch that creates the model, or
/// by the context's next fetch or save. Called by generated code; not API.
public func _osdConstant<T: _PersistentScalar>(_ type: T.Type, property index: Int) -> T {
    guard let source = ConstantSource.current else { return T._osdPlaceholder }
    do {
        return try source.value(T.self, property: index)
    } catch {
        if source.failure == nil { source.failure = error }
        return T._osdPlaceholder
    }
}

/// Rejects `let` properties of types OpenSwiftData cannot give a placeholder, with a clear
/// compile-time message.
@available(*, unavailable, message: "A 'let' property of a model must be a standard value type (String, numbers, Bool, Date, Data, UUID, URL, Decimal, or an optional of one); declare this one 'private(set) var'")
/// Unavailable, so never called: the body only satisfies the compiler.
public func _osdConstant<T>(_ type: T.Type, property index: Int) -> T { fatalError() }
