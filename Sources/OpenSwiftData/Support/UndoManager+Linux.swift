#if !canImport(Darwin)
/// A minimal stand-in for Foundation's `UndoManager`, which Linux's Foundation lacks, so that
/// `ModelContext.undoManager` compiles everywhere. It records nothing yet.
open class UndoManager: @unchecked Sendable {
    // @unchecked Sendable: it has no state.

    /// Creates an undo manager.
    public init() {}
    /// Whether there is an action to undo. Always `false`.
    open var canUndo: Bool { false }
    /// Whether there is an action to redo. Always `false`.
    open var canRedo: Bool { false }
    /// Undoes the last action. Does nothing.
    open func undo() {}
    /// Redoes the last undone action. Does nothing.
    open func redo() {}
}
#endif
