/// A weak reference to a context, shared by every model the context manages. Generated storage
/// holds it; not API.
public final class _ContextReference {
    weak var context: ModelContext?
    /// Whether the context has an undo manager, so that a setter registers how to revert its
    /// change: read by every generated setter, and `false` unless the app asks for undo.
    /// Set only as the context's undo manager changes, and read whole, so it skips the run-time
    /// exclusivity check.
    @exclusivity(unchecked) @usableFromInline var registersUndo = false
    /// The container of the context, for a stand-in once the context is gone: kept alive by the
    /// models too, since they may outlive both. (The main context's reference, which the
    /// container itself holds, refers to it weakly instead.)
    private var container: ModelContainer?
    private weak var weakContainer: ModelContainer?

    /// Records the context's container: strongly, unless the container holds the context.
    func setContainer(_ container: ModelContainer, strongly: Bool) {
        self.container = strongly ? container : nil
        weakContainer = container
    }
    /// The context that loads for the models after their own context was deallocated. Held
    /// strongly: the models it loads refer to it in turn, so it lives as long as they do.
    private var replacement: ModelContext?

    /// The context, or once it is gone, the stand-in that took its models in.
    var current: ModelContext? { context ?? replacement }

    /// The context to load through when `context` is gone: created once, then reused, so that
    /// every model it loads has one identity.
    func standIn() -> ModelContext? {
        if let replacement { return replacement }
        guard let container = container ?? weakContainer else { return nil }
        let standIn = ModelContext(container)
        standIn.identityMap.holdsWeakly = true
        replacement = standIn
        return standIn
    }
}
