import Foundation
import Observation

/// Watches a container's stores for new history transactions, from this process or others, and
/// counts the relevant ones in an observable property.
///
/// ```swift
/// let observer = try HistoryObserver(observedModels: [Trip.self], modelContainer: container)
/// withObservationTracking { _ = observer.eventCounter } onChange: { reloadTrips() }
/// ```
///
/// The observer looks after each save of a context of the container (its save log signals it), and
/// after another connection's save once the container has seen it (it looks twice a second while an
/// observer exists); it reads the history only then. It stops when it is released.
@Observable
public final class HistoryObserver {
    /// A number that increases each time new relevant transactions appear.
    public private(set) var eventCounter = 0
    /// The container whose stores the observer watches.
    @ObservationIgnored public let modelContainer: ModelContainer
    /// The model classes whose changes count; all when empty.
    @ObservationIgnored public let observedModels: [any PersistentModel.Type]
    /// The authors whose transactions count; all when empty.
    @ObservationIgnored public let authors: Set<String>
    /// The last transaction seen, by store identifier.
    @ObservationIgnored private var positions: [String: Int64] = [:]
    /// The save-log generation of the last look, or `nil` before a first look that given tokens need.
    @ObservationIgnored private var seenGeneration: UInt64?
    @ObservationIgnored private var watcher: Task<Void, Never>?
    /// The error of the last look that could not read the history, kept for diagnosis; the next
    /// look retries from the same positions.
    @ObservationIgnored private(set) var lastFailure: (any Error)?

    /// Creates an observer of the transactions after `historyTokens` (by store identifier), or
    /// after the current end of each store's history when `nil`.
    ///
    /// - Parameters:
    ///   - historyTokens: The last transaction already seen in each store, by store identifier;
    ///     `nil` to start at the current end of each store's history.
    ///   - observedModels: The model classes whose changes count; all when empty.
    ///   - authors: The authors whose transactions count; all when empty.
    ///   - modelContainer: The container whose stores' histories the observer reads.
    ///   - isolation: The actor the observer updates `eventCounter` on: the caller's.
    public convenience init(
        historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
        authors: Set<String> = [], modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(historyTokens: historyTokens, observedModels: observedModels, authors: authors, modelContainer: modelContainer)
        let signals = modelContainer.saveLog.signals()
        modelContainer.followExternalSaves()
        watcher = Task { [weak self] in
            _ = isolation
            for await _ in signals {
                guard let self else { return }
                do {
                    try self.check()
                } catch {
                    // The positions did not move, so the next look reads the same transactions
                    // again: a failed read delays an event, it never loses one.
                    self.lastFailure = error
                }
            }
        }
    }

    private init(historyTokens: [String: any HistoryToken]?, observedModels: [any PersistentModel.Type], authors: Set<String>, modelContainer: ModelContainer) throws {
        self.modelContainer = modelContainer
        self.observedModels = observedModels
        self.authors = authors
        self.seenGeneration = historyTokens == nil ? modelContainer.saveLog.latestGeneration : nil
        for slot in modelContainer.stores {
            let identifier = slot.store.identifier
            if let historyTokens {
                positions[identifier] = (historyTokens[identifier] as? DefaultHistoryToken)?.tokenValue[identifier] ?? 0
            } else {
                positions[identifier] = try slot.latestHistoryTransaction()
            }
        }
    }

    deinit { watcher?.cancel() }

    /// Reads the transactions saved since the last look and counts an event when one is relevant.
    func check() throws {
        _ = try modelContainer.pullExternalSaves()
        let generation = modelContainer.saveLog.latestGeneration
        guard generation != seenGeneration else { return }
        let entityNames = Set(observedModels.map { $0._osdEntityName })
        // Positions move only once every store was read, so that a failed read loses nothing.
        var updated = positions
        var relevant = false
        for slot in modelContainer.stores {
            let identifier = slot.store.identifier
            let transactions = try slot.historyTransactions(after: updated[identifier] ?? 0)
            guard let last = transactions.last?.id else { continue }
            updated[identifier] = last
            relevant = relevant || transactions.contains { transaction in
                (authors.isEmpty || transaction.author.map(authors.contains) == true)
                    && (entityNames.isEmpty || transaction.changes.contains { entityNames.contains($0.entityName) })
            }
        }
        positions = updated
        seenGeneration = generation
        lastFailure = nil
        if relevant { eventCounter += 1 }
    }
}
