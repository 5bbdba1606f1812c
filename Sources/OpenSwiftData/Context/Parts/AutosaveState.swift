/// Whether and where a context saves by itself after a change.
struct AutosaveState {
    /// Whether the context saves pending changes automatically.
    var isEnabled = false
    /// Whether an autosave is already on its way.
    var isScheduled = false
    /// Whether the context was created where the main actor's work runs (the main thread or the
    /// main dispatch queue), where its autosaves run.
    let isOnMainActor: Bool
}
