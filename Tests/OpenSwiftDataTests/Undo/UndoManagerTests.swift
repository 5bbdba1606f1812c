import Foundation
import Testing
@testable import OpenSwiftData

#if !canImport(Darwin)
/// The `UndoManager` that stands in for Foundation's on Linux behaves as Foundation documents:
/// groups undone as one, redo, the redo stack cleared by new work, limits and registration switches.
struct UndoManagerTests {
    /// A value the tests change through registered operations, as an app's document would.
    final class Counter {
        var value = 0
        var log: [Int] = []

        /// Sets the value and registers how to set it back, the way every undoable change does.
        func set(_ newValue: Int, with manager: UndoManager) {
            let old = value
            manager.registerUndo(withTarget: self) { $0.set(old, with: manager) }
            value = newValue
            log.append(newValue)
        }
    }

    @Test func registrationsOutsideAGroupAreUndoneTogetherThenRedone() {
        let manager = UndoManager()
        let counter = Counter()
        #expect(!manager.canUndo && !manager.canRedo)
        counter.set(1, with: manager)
        counter.set(2, with: manager)
        #expect(manager.canUndo && manager.groupingLevel == 1, "the first registration opened a group")
        manager.undo()
        #expect(counter.value == 0, "both changes were in one automatic group")
        #expect(manager.canRedo && !manager.canUndo && manager.groupingLevel == 0)
        manager.redo()
        #expect(counter.value == 2)
        #expect(manager.canUndo && !manager.canRedo)
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test @MainActor func anAutomaticGroupOpenedOnTheMainActorClosesWhenItsJobEnds() async {
        let manager = UndoManager()
        let counter = Counter()
        // Registered from the main actor itself (as an app's main-actor code does).
        func set(_ value: Int) {
            let old = counter.value
            manager.registerUndo(withTarget: counter) { $0.value = old }
            counter.value = value
        }
        set(1)
        set(2)
        #expect(manager.groupingLevel == 1)
        // The next job on the main actor: the nearest there is to the next event.
        await waitUntil { manager.groupingLevel == 0 }
        #expect(manager.groupingLevel == 0)
        set(3)
        manager.undo()
        #expect(counter.value == 2, "the change after the await was a group of its own")
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test func explicitGroupsAreUndoneOneAtATimeInReverseOrder() {
        let manager = UndoManager()
        let counter = Counter()
        for step in 1...3 {
            manager.beginUndoGrouping()
            counter.set(step * 10, with: manager)
            counter.set(step * 10 + 1, with: manager)
            manager.endUndoGrouping()
        }
        #expect(counter.value == 31)
        manager.undo()
        #expect(counter.value == 21)
        manager.undo()
        #expect(counter.value == 11)
        manager.redo()
        #expect(counter.value == 21)
        manager.undo()
        manager.undo()
        #expect(counter.value == 0)
        #expect(!manager.canUndo)
        manager.undo()
        #expect(counter.value == 0, "undo with nothing to undo does nothing")
    }

    @Test func nestedGroupsAreUndoneWithTheirOutermostGroup() {
        let manager = UndoManager()
        let counter = Counter()
        manager.beginUndoGrouping()
        counter.set(1, with: manager)
        manager.beginUndoGrouping()
        counter.set(2, with: manager)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 1)
        manager.undo()
        #expect(counter.value == 0, "undo closed the one open group, then undid it with the nested one")
    }

    @Test func newWorkClearsTheRedoStack() {
        let manager = UndoManager()
        let counter = Counter()
        counter.set(1, with: manager)
        manager.undo()
        #expect(manager.canRedo)
        counter.set(5, with: manager)
        #expect(!manager.canRedo, "a registration outside undo and redo clears the redo stack")
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test func levelsOfUndoKeepsTheNewestGroups() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let counter = Counter()
        for value in 1...4 {
            manager.beginUndoGrouping()
            counter.set(value, with: manager)
            manager.endUndoGrouping()
        }
        manager.undo()
        manager.undo()
        #expect(counter.value == 2)
        #expect(!manager.canUndo, "the two oldest groups were dropped")
    }

    @Test func disabledRegistrationRecordsNothing() {
        let manager = UndoManager()
        let counter = Counter()
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        counter.set(1, with: manager)
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled, "enabling balances one disabling")
        counter.set(2, with: manager)
        #expect(!manager.canUndo)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        counter.set(3, with: manager)
        manager.undo()
        #expect(counter.value == 2)
    }

    @Test func withoutGroupsByEventEachRegistrationIsAGroup() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter()
        counter.set(1, with: manager)
        counter.set(2, with: manager)
        #expect(manager.groupingLevel == 0)
        manager.undo()
        #expect(counter.value == 1)
    }

    @Test func removingActionsOfATargetLeavesTheOthers() {
        let manager = UndoManager()
        let first = Counter()
        let second = Counter()
        manager.beginUndoGrouping()
        first.set(1, with: manager)
        second.set(1, with: manager)
        manager.endUndoGrouping()
        manager.removeAllActions(withTarget: first)
        manager.undo()
        #expect(first.value == 1 && second.value == 0)
        manager.removeAllActions()
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func actionNamesFollowTheirGroups() {
        let manager = UndoManager()
        let counter = Counter()
        manager.beginUndoGrouping()
        counter.set(1, with: manager)
        manager.setActionName("Rename")
        manager.endUndoGrouping()
        #expect(manager.undoActionName == "Rename")
        #expect(manager.undoMenuItemTitle == "Undo Rename")
        manager.undo()
        #expect(manager.redoActionName == "Rename" && manager.redoMenuItemTitle == "Redo Rename")
        #expect(manager.undoMenuItemTitle == "Undo")
    }

    @Test func anOperationWhoseTargetIsGoneIsSkipped() {
        let manager = UndoManager()
        let kept = Counter()
        do {
            let gone = Counter()
            manager.beginUndoGrouping()
            gone.set(1, with: manager)
            kept.set(1, with: manager)
            manager.endUndoGrouping()
        }
        manager.undo()
        #expect(kept.value == 0)
    }

    @Test func undoAndRedoPostTheirNotifications() {
        let manager = UndoManager()
        let counter = Counter()
        let names = LockedValue<[Notification.Name]>([])
        let observers = [UndoManager.willUndoChangeNotification, UndoManager.didUndoChangeNotification,
                         UndoManager.willRedoChangeNotification, UndoManager.didRedoChangeNotification].map { name in
            NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in names.withValue { $0.append(note.name) } }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        counter.set(1, with: manager)
        manager.undo()
        manager.redo()
        #expect(names.load() == [UndoManager.willUndoChangeNotification, UndoManager.didUndoChangeNotification,
                          UndoManager.willRedoChangeNotification, UndoManager.didRedoChangeNotification])
    }
}
#endif
