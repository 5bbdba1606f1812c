import Foundation

/// Wakes the pulls waiting for changes (`GET /v1/changes?wait=…`) when a push of their user's
/// commits.
actor ChangeAnnouncer {
    /// Counts each user's announcements, so that a pull that read nothing before one does not wait.
    private var generations: [String: UInt64] = [:]
    private enum Slot {
        case waiting(CheckedContinuation<Void, Never>)
        /// Woken before it began to wait.
        case woken
    }
    private var slots: [UUID: Slot] = [:]
    /// The waiting pulls of each user.
    private var waiters: [String: Set<UUID>] = [:]
    /// Whether the server is stopping: pulls no longer wait.
    private var isClosed = false

    /// How many pulls wait for an announcement.
    var waitingCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

    /// The number of a user's announcements so far.
    func generation(of user: String) -> UInt64 { generations[user] ?? 0 }

    /// Announces a change of a user's rows to that user's waiting pulls.
    func announce(to user: String) {
        generations[user, default: 0] &+= 1
        for id in waiters.removeValue(forKey: user) ?? [] {
            if case .waiting(let continuation) = slots.removeValue(forKey: id) { continuation.resume() }
        }
    }

    /// Lets pulls wait again: the server runs (again).
    func open() { isClosed = false }

    /// Ends every wait, now and later: the server is stopping, and its waiting pulls answer with
    /// what they read so that their connections close.
    func close() {
        isClosed = true
        for id in waiters.values.joined() {
            if case .waiting(let continuation) = slots.removeValue(forKey: id) { continuation.resume() }
        }
        waiters = [:]
    }

    /// Waits until an announcement after `since` (at once if one came already), at most `seconds`,
    /// or until the task is cancelled. Returns false, at once, once the announcer is closed.
    nonisolated func wait(for user: String, seconds: Double, since: UInt64) async -> Bool {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.enqueue(id, user: user, since: since) }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                await self.wake(id)
            }
            await group.next()
            group.cancelAll()
            await self.wake(id)
        }
        return await forget(id, user: user)
    }

    private func enqueue(_ id: UUID, user: String, since: UInt64) async {
        if case .woken = slots[id] { return }
        guard !isClosed, generation(of: user) == since else { return }
        await withCheckedContinuation { continuation in
            slots[id] = .waiting(continuation)
            waiters[user, default: []].insert(id)
        }
    }

    private func wake(_ id: UUID) {
        if case .waiting(let continuation) = slots[id] {
            continuation.resume()
        }
        slots[id] = .woken
    }

    /// Forgets a wait that ended; answers whether the announcer is still open.
    private func forget(_ id: UUID, user: String) -> Bool {
        slots[id] = nil
        waiters[user]?.remove(id)
        if waiters[user]?.isEmpty == true { waiters[user] = nil }
        return !isClosed
    }
}
