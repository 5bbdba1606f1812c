/// Where a context stands among the container's saves: how far it merged other contexts' saves,
/// and counters that tell an undo whether the value it restores was saved or merged since.
struct MergeState {
    /// The generation of the container's save log this context has merged up to.
    var seenGeneration: UInt64
    /// Counts the context's saves.
    var saveGeneration: UInt64 = 0
    /// Counts the merges of other contexts' saves into this one.
    var mergeCount: UInt64 = 0
}
