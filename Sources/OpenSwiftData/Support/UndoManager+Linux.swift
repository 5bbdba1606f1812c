#if !canImport(Darwin)
import Foundation

/// A general-purpose recorder of operations that enables undo and redo.
///
/// Foundation on Linux has no `UndoManager`; this one has the part of its interface that apps use
/// with SwiftData, and behaves as Foundation's does. Assign one to a context's
/// ``ModelContext/undoManager`` and the context registers how to revert each insertion, deletion
/// and property change:
///
/// ```swift
/// let undoManager = UndoManager()
/// context.undoManager = undoManager
/// trip.name = "Paris"
/// undoManager.undo()   // trip.name is what it was before
/// undoManager.redo()   // "Paris" again
/// ```
///
/// Operations registered outside an explicit group (``beginUndoGrouping()``) open one
/// automatically when ``groupsByEvent`` is `true`, the default. There is no event loop to close it
/// at the end of each event as on Apple platforms, so it stays open until ``undo()`` closes it,
/// until you call ``endUndoGrouping()``, or, when it opened on the main actor, until the main
/// actor's current job ends. To make separate steps of work done in one go, group each one
/// explicitly.
open class UndoManager: @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written only while `lock` is held;
    // registered handlers run outside it.

    /// A registered operation: its handler, bound to a target the manager does not keep alive.
    struct Action {
        weak var target: AnyObject?
        let run: (AnyObject) -> Void
    }

    /// The operations of one closed group, in the order they were registered.
    private struct Group {
        var actions: [Action]
        var name: String
    }

    private let lock = NSLock()
    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The groups open now, outermost first.
    private var openGroups: [Group] = []
    /// Whether the outermost open group was opened by a registration (``groupsByEvent``).
    private var outermostIsAutomatic = false
    /// Counts automatic groups, so that a scheduled close never closes a later one.
    private var automaticGroupNumber = 0
    private var disabledCount = 0
    private var undoing = false
    private var redoing = false
    private var _groupsByEvent = true
    private var _levelsOfUndo = 0

    /// Creates an undo manager with empty undo and redo stacks.
    public init() {}

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Registering undo operations

    /// Records a closure that reverts an operation, with the object it applies to.
    ///
    /// The undo manager does not keep `target` alive; an operation whose target is gone when it
    /// would run is skipped. Registering while ``isUndoRegistrationEnabled`` is `false` does
    /// nothing. Registering an operation other than while undoing or redoing clears the redo stack.
    ///
    /// - Parameters:
    ///   - target: The object the operation changes.
    ///   - isolation: The caller's actor; leave it to its default. A group this registration opens
    ///     on the main actor closes when the main actor's current job ends.
    ///   - handler: The closure that reverts the operation, called with `target`.
    open func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType, isolation: (any Actor)? = #isolation, handler: @escaping (TargetType) -> Void
    ) {
        register(Action(target: target) { handler(unsafeDowncast($0, to: TargetType.self)) },
                 onMainActor: isolation.map { $0 === MainActor.shared } ?? false)
    }

    /// Records an operation; a group it opens on the main actor closes when the main actor's
    /// current job ends.
    func register(_ action: Action, onMainActor: Bool) {
        let scheduleClose: Int? = locked {
            guard disabledCount == 0 else { return nil }
            if !undoing && !redoing { redoStack.removeAll() }
            guard openGroups.isEmpty else {
                openGroups[openGroups.count - 1].actions.append(action)
                return nil
            }
            openGroups.append(Group(actions: [action], name: ""))
            guard _groupsByEvent else {
                // Outside any group, without `groupsByEvent`: a group of its own.
                closeOutermostGroup()
                return nil
            }
            outermostIsAutomatic = true
            automaticGroupNumber += 1
            return automaticGroupNumber
        }
        if let scheduleClose, onMainActor { closeAtEndOfMainActorJob(scheduleClose) }
    }

    /// Closes an automatic group opened on the main thread once the main actor's current job ends:
    /// the nearest there is to the end of an event.
    private func closeAtEndOfMainActorJob(_ number: Int) {
        Task { @MainActor in
            self.locked {
                guard self.automaticGroupNumber == number, self.outermostIsAutomatic,
                      self.openGroups.count == 1, !self.undoing, !self.redoing else { return }
                self.closeOutermostGroup()
            }
        }
    }

    // MARK: Grouping

    /// Opens a group: the operations registered until the matching ``endUndoGrouping()`` are
    /// undone and redone together.
    open func beginUndoGrouping() {
        locked { openGroups.append(Group(actions: [], name: "")) }
    }

    /// Closes the group the last ``beginUndoGrouping()`` opened.
    ///
    /// Calling it with no group open does nothing (Foundation raises an exception).
    open func endUndoGrouping() {
        locked {
            guard !openGroups.isEmpty else { return }
            if openGroups.count == 1 {
                closeOutermostGroup()
            } else {
                let inner = openGroups.removeLast()
                openGroups[openGroups.count - 1].actions += inner.actions
                if openGroups[openGroups.count - 1].name.isEmpty {
                    openGroups[openGroups.count - 1].name = inner.name
                }
            }
        }
    }

    /// Moves the outermost open group to the stack it belongs on. Called with the lock held.
    private func closeOutermostGroup() {
        let group = openGroups.removeLast()
        outermostIsAutomatic = false
        guard !group.actions.isEmpty else { return }
        if undoing {
            redoStack.append(group)
        } else {
            undoStack.append(group)
            trim(&undoStack)
        }
    }

    /// Drops a stack's oldest groups past ``levelsOfUndo``. Called with the lock held.
    private final func trim(_ stack: inout [Group]) {
        if _levelsOfUndo > 0, stack.count > _levelsOfUndo { stack.removeFirst(stack.count - _levelsOfUndo) }
    }

    /// The number of groups open now.
    open var groupingLevel: Int { locked { openGroups.count } }

    /// Whether a registration made outside any group opens one automatically. The default is
    /// `true`. When `false`, an operation registered outside a group is undone on its own.
    open var groupsByEvent: Bool {
        get { locked { _groupsByEvent } }
        set { locked { _groupsByEvent = newValue } }
    }

    /// The most groups the undo stack keeps; older ones are dropped. `0`, the default, means no limit.
    open var levelsOfUndo: Int {
        get { locked { _levelsOfUndo } }
        set {
            locked {
                _levelsOfUndo = max(0, newValue)
                trim(&undoStack)
                trim(&redoStack)
            }
        }
    }

    // MARK: Undoing and redoing

    /// Whether there is a group to undo (including an automatic group still open).
    open var canUndo: Bool {
        locked { !undoStack.isEmpty || (openGroups.count == 1 && _groupsByEvent && !openGroups[0].actions.isEmpty) }
    }

    /// Whether there is a group to redo.
    open var canRedo: Bool { locked { !redoStack.isEmpty } }

    /// Whether the manager is running the operations of an undo.
    open var isUndoing: Bool { locked { undoing } }

    /// Whether the manager is running the operations of a redo.
    open var isRedoing: Bool { locked { redoing } }

    /// Reverts the last group: runs its operations in the reverse of the order they were
    /// registered, and records what they register as a group to redo.
    ///
    /// When ``groupsByEvent`` is `true` and one group is open (an automatic one, say), it is
    /// closed first. With nested groups open, it does nothing (Foundation raises an exception).
    open func undo() {
        guard let group = take(undoing: true) else { return }
        NotificationCenter.default.post(name: Self.willUndoChangeNotification, object: self)
        run(group, undoing: true)
        NotificationCenter.default.post(name: Self.didUndoChangeNotification, object: self)
    }

    /// Performs again the group the last undo reverted, and records what it registers as a group
    /// to undo.
    open func redo() {
        guard let group = take(undoing: false) else { return }
        NotificationCenter.default.post(name: Self.willRedoChangeNotification, object: self)
        run(group, undoing: false)
        NotificationCenter.default.post(name: Self.didRedoChangeNotification, object: self)
    }

    /// Takes the group to undo or redo off its stack and opens the group that collects its
    /// inverse; `nil` if there is none or an explicit group is open.
    private func take(undoing isUndo: Bool) -> Group? {
        locked {
            if openGroups.count == 1, _groupsByEvent { closeOutermostGroup() }
            guard openGroups.isEmpty, !undoing, !redoing else { return nil }
            guard let group = isUndo ? undoStack.popLast() : redoStack.popLast() else { return nil }
            if isUndo { undoing = true } else { redoing = true }
            openGroups.append(Group(actions: [], name: group.name))
            return group
        }
    }

    private func run(_ group: Group, undoing isUndo: Bool) {
        for action in group.actions.reversed() {
            guard let target = action.target else { continue }
            action.run(target)
        }
        locked {
            // A redo's operations register undo operations: they go on the undo stack, and keep
            // the redo stack as it is.
            if !openGroups.isEmpty {
                while openGroups.count > 1 {
                    let inner = openGroups.removeLast()
                    openGroups[openGroups.count - 1].actions += inner.actions
                }
                closeOutermostGroup()
            }
            if isUndo { undoing = false } else { redoing = false }
        }
    }

    // MARK: Enabling and disabling registration

    /// Whether registering operations records them.
    open var isUndoRegistrationEnabled: Bool { locked { disabledCount == 0 } }

    /// Stops recording registered operations until a matching ``enableUndoRegistration()``.
    open func disableUndoRegistration() {
        locked { disabledCount += 1 }
    }

    /// Resumes recording registered operations, balancing one ``disableUndoRegistration()``.
    open func enableUndoRegistration() {
        locked { disabledCount = max(0, disabledCount - 1) }
    }

    // MARK: Clearing

    /// Empties the undo and redo stacks, including any group still open.
    open func removeAllActions() {
        locked {
            undoStack.removeAll()
            redoStack.removeAll()
            openGroups.removeAll()
            outermostIsAutomatic = false
        }
    }

    /// Removes the operations registered with `target` from the undo and redo stacks.
    open func removeAllActions(withTarget target: AnyObject) {
        locked {
            func keep(_ action: Action) -> Bool { action.target.map { $0 !== target } ?? false }
            func without(_ stack: [Group]) -> [Group] {
                stack.compactMap { group in
                    let actions = group.actions.filter(keep)
                    return actions.isEmpty ? nil : Group(actions: actions, name: group.name)
                }
            }
            undoStack = without(undoStack)
            redoStack = without(redoStack)
            for index in openGroups.indices { openGroups[index].actions.removeAll { !keep($0) } }
        }
    }

    // MARK: Action names

    /// Names the group being recorded, for an Undo or Redo menu item.
    open func setActionName(_ actionName: String) {
        locked {
            if !openGroups.isEmpty { openGroups[openGroups.count - 1].name = actionName }
        }
    }

    /// The name of the group ``undo()`` reverts, or `""`.
    open var undoActionName: String {
        locked {
            if openGroups.count == 1, _groupsByEvent, !openGroups[0].actions.isEmpty { return openGroups[0].name }
            return undoStack.last?.name ?? ""
        }
    }

    /// The name of the group ``redo()`` performs again, or `""`.
    open var redoActionName: String { locked { redoStack.last?.name ?? "" } }

    /// The title of an Undo menu item: "Undo" and the action name.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// The title of a Redo menu item: "Redo" and the action name.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// The title of an Undo menu item for an action name.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// The title of a Redo menu item for an action name.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: Notifications

    /// Posted before the manager undoes a group. The object is the undo manager.
    public static let willUndoChangeNotification = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after the manager undid a group. The object is the undo manager.
    public static let didUndoChangeNotification = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before the manager redoes a group. The object is the undo manager.
    public static let willRedoChangeNotification = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after the manager redid a group. The object is the undo manager.
    public static let didRedoChangeNotification = Notification.Name("NSUndoManagerDidRedoChangeNotification")
}
#endif
