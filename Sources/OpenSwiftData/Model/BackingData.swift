/// An interface for providing in-memory storage for a persistent model.
///
/// OpenSwiftData keeps a model's identity, context and change set in fields that ``Model()``
/// generates into the model class, and its property values in typed storage beside them; its
/// backing data is a handle on the model.
public protocol BackingData<Model> {
    /// The model type the backing data belongs to.
    associatedtype Model: PersistentModel

    /// The identifier of the model that owns the backing data, if it has one.
    var persistentModelID: PersistentIdentifier? { get }

    /// Creates backing data for a model of the given type.
    init(for modelType: Model.Type)

    /// The model whose state the backing data hands on, if any. Not API.
    var _osdModel: Model? { get }
}

extension BackingData {
    /// Backing data of other kinds hand on no model's state.
    public var _osdModel: Model? { nil }
}

/// OpenSwiftData's backing data: a handle on one model instance, or on none. Not API.
///
/// A value, so that creating a model for a row allocates nothing besides the model.
public struct _ModelBacking<Model: PersistentModel>: BackingData {
    /// The model whose state this backing data hands on, or `nil` for a new model.
    public let _osdModel: Model?

    /// Creates empty backing data: a model that no context manages yet.
    public init(for modelType: Model.Type) { _osdModel = nil }

    /// Creates empty backing data.
    @inlinable public init() { _osdModel = nil }

    /// Creates backing data that hands on the state of `model`.
    public init(of model: Model) { _osdModel = model }

    /// The identifier of the model, or `nil` if it was never inserted into a context.
    public var persistentModelID: PersistentIdentifier? {
        guard let model = _osdModel, model._osdLocation != nil else { return nil }
        return model.persistentModelID
    }
}
