import Observation

/// A model's Observation registrar, made on the model's first read. Generated storage; not API.
///
/// A model refers to its registrar through this class rather than storing an
/// `ObservationRegistrar?`: the registrar's layout is known only inside the Observation module, so
/// an optional registrar in the model would be copied and destroyed through value witnesses at
/// every change and at the model's deallocation (about 200 instructions each, whether or not the
/// registrar exists). A reference is a pointer: `nil` costs nothing to destroy.
public final class _ModelObservation: Sendable {
    /// The registrar that reports the model's reads and changes to Observation.
    public let registrar = ObservationRegistrar()

    /// Creates the registrar of one model.
    public init() {}

    /// Reports a read of the property at `keyPath` of `model`.
    @inlinable
    public func access<Model: Observable, Value>(_ model: Model, keyPath: KeyPath<Model, Value>) {
        registrar.access(model, keyPath: keyPath)
    }

    /// Reports a change of the property at `keyPath` of `model`, made by `mutation`.
    @inlinable
    public func withMutation<Model: Observable, Value, Result>(
        of model: Model, keyPath: KeyPath<Model, Value>, _ mutation: () throws -> Result
    ) rethrows -> Result {
        try registrar.withMutation(of: model, keyPath: keyPath, mutation)
    }
}
