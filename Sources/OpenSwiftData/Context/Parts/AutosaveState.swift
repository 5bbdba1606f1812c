/// Whether and where a context saves by itself after a change, and whether it belongs to the main
/// actor (where its autosaves and undo registrations run).
struct AutosaveState {
    /// Whether the context saves pending changes automatically.
    var isEnabled = false
    /// Whether an autosave is already on its way.
    var isScheduled = false
    /// Whether the context was created where the main actor's work runs (the main thread or the
    /// main dispatch queue), where its autosaves run.
    let isOnMainActor: Bool
    /// Whether this is the container's main context. Set once, when the container makes it.
    var isMainContext = false

    /// Whether the context's autosaves and undo registrations belong to the main actor.
    var runsOnMainActor: Bool { isOnMainActor || isMainContext }
}
