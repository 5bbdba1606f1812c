import Foundation

/// How a context talks to its undo manager: directly on Linux, where ``UndoManager`` is
/// OpenSwiftData's; on Apple platforms, where Foundation's `UndoManager` belongs to the main
/// actor, only on the main thread (where SwiftData's undo support runs too: the main context).
enum UndoRegistration {
    /// Whether registering with `manager` records anything now.
    static func isEnabled(_ manager: UndoManager) -> Bool {
        #if canImport(Darwin)
        guard Thread.isMainThread else { return false }
        nonisolated(unsafe) let manager = manager
        return MainActor.assumeIsolated { manager.isUndoRegistrationEnabled }
        #else
        manager.isUndoRegistrationEnabled
        #endif
    }

    /// Registers `revert` with `manager`, with `context` as its target.
    static func register(_ revert: @escaping (ModelContext) -> Void, with manager: UndoManager, target context: ModelContext) {
        #if canImport(Darwin)
        guard Thread.isMainThread else { return }
        nonisolated(unsafe) let manager = manager
        nonisolated(unsafe) let context = context
        nonisolated(unsafe) let revert = revert
        MainActor.assumeIsolated {
            manager.registerUndo(withTarget: context) { target in revert(target) }
        }
        #else
        // The context's own actor: a group its registration opens on the main actor closes with
        // the main actor's job, as an event's would.
        let action = UndoManager.Action(target: context) { revert(unsafeDowncast($0, to: ModelContext.self)) }
        manager.register(action, onMainActor: context.autosave.runsOnMainActor)
        #endif
    }

    /// Empties `manager`'s undo and redo stacks.
    static func removeAllActions(of manager: UndoManager) {
        #if canImport(Darwin)
        guard Thread.isMainThread else { return }
        nonisolated(unsafe) let manager = manager
        MainActor.assumeIsolated { manager.removeAllActions() }
        #else
        manager.removeAllActions()
        #endif
    }
}
