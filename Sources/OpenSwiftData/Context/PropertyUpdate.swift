/// A stored attribute of a model and the value an update by predicate sets it to.
///
/// Make one with ``set(_:to:)`` and pass it, with others, to
/// ``ModelContext/update(model:where:_:includeSubclasses:)``:
///
/// ```swift
/// try context.update(model: Trip.self, where: #Predicate { $0.endDate < cutoff },
///                    .set(\.isArchived, to: true), .set(\.archivedAt, to: .now))
/// ```
///
/// This type is an addition of OpenSwiftData; SwiftData has no batch updates.
public struct PropertyUpdate<Model: PersistentModel> {
    /// The attribute.
    let keyPath: PartialKeyPath<Model>
    /// The value as the store writes it, when it is a standard type.
    let scalar: (any _PersistentScalar)?
    /// Sets the attribute of a model to the value.
    let apply: (Model) -> Void

    /// An update that sets the property at `keyPath` to `value`.
    ///
    /// - Parameters:
    ///   - keyPath: A stored attribute of the model: not a relationship, a computed, `@Transient`
    ///     or `.ephemeral` property.
    ///   - value: The new value.
    public static func set<Value>(_ keyPath: ReferenceWritableKeyPath<Model, Value>, to value: Value) -> PropertyUpdate {
        PropertyUpdate(keyPath: keyPath, scalar: value as? any _PersistentScalar) { $0[keyPath: keyPath] = value }
    }
}
