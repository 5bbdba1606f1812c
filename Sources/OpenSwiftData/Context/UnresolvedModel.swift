/// What ``ModelContext/model(for:)`` returns for an identifier that no model of the container can
/// have: a model of no schema, reporting `isDeleted`, with the identifier it was asked for.
@Model
final class UnresolvedModel {
    init() {}

    /// A stand-in for `identifier`.
    static func standIn(for identifier: PersistentIdentifier) -> UnresolvedModel {
        let model = UnresolvedModel()
        let state = model._osdState
        state.location = identifier.location
        switch identifier.id.key {
        case .permanent(let key): state.primaryKey = key
        case .temporary(let key): state.temporaryKey = key
        }
        state.isDeleted = true
        return model
    }
}
