/// An interface for providing in-memory storage for a persistent model.
///
/// OpenSwiftData's own backing data keeps the model's identity, its context and its change set;
/// the property values themselves live in typed storage that ``Model()`` generates.
public protocol BackingData<Model>: AnyObject {
    /// The model type the backing data belongs to.
    associatedtype Model: PersistentModel

    /// The identifier of the model that owns the backing data, if it has one.
    var persistentModelID: PersistentIdentifier? { get }

    /// Creates backing data for a model of the given type.
    init(for modelType: Model.Type)
}

/// The backing data of one model instance. `@Model` creates it; not API.
public final class _ModelBacking<Model: PersistentModel>: _ModelState, BackingData {
    /// Creates empty backing data: a model that no context manages yet.
    public init(for modelType: Model.Type) { super.init() }

    /// Creates empty backing data.
    public override init() { super.init() }

    /// Returns `backingData` when it is OpenSwiftData's own, or fresh backing data otherwise.
    @inlinable
    public static func adopting(_ backingData: any BackingData<Model>) -> _ModelBacking<Model> {
        if ObjectIdentifier(type(of: backingData)) == ObjectIdentifier(_ModelBacking<Model>.self) {
            return unsafeDowncast(backingData, to: _ModelBacking<Model>.self)
        }
        return (backingData as? _ModelBacking<Model>) ?? _ModelBacking<Model>()
    }

    /// The identifier of the model, or `nil` if it was never inserted into a context.
    public var persistentModelID: PersistentIdentifier? {
        entityName == nil ? nil : persistentModelID(for: Model.self)
    }
}
