import Foundation

/// Wakes the pulls waiting for changes (`GET /v1/changes?wait=…`) when a push commits.
actor ChangeAnnouncer {
    /// Counts announcements, so that a pull that read nothing before an announcement does not wait.
    private(set) var generation: UInt64 = 0
    private enum Slot {
        case waiting(CheckedContinuation<Void, Never>)
        /// Woken before it began to wait.
        case woken
    }
    private var slots: [UUID: Slot] = [:]

    /// Announces a change to everyone waiting.
    func announce() {
        generation &+= 1
        let woken = slots
        slots = [:]
        for case .waiting(let continuation) in woken.values { continuation.resume() }
    }

    /// Waits until an announcement after `since` (at once if one came already), at most `seconds`,
    /// or until the task is cancelled.
    nonisolated func wait(seconds: Double, since: UInt64) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.enqueue(id, since: since) }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                await self.wake(id)
            }
            await group.next()
            group.cancelAll()
            await self.wake(id)
        }
        await forget(id)
    }

    private func enqueue(_ id: UUID, since: UInt64) async {
        if case .woken = slots[id] { return }
        guard generation == since else { return }
        await withCheckedContinuation { continuation in
            slots[id] = .waiting(continuation)
        }
    }

    private func wake(_ id: UUID) {
        if case .waiting(let continuation) = slots[id] {
            continuation.resume()
        }
        slots[id] = .woken
    }

    private func forget(_ id: UUID) {
        slots[id] = nil
    }
}
