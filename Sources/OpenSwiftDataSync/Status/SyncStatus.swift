import Foundation
import Observation
import OpenSwiftData

/// Where a ``SyncEngine`` stands: what waits to be sent, whether the store is up to date with the
/// server, when it last was, and what went wrong.
///
/// The engine's ``SyncEngine/status`` changes as it works, and is `Observable`: a SwiftUI view that
/// reads it updates with it. ``SyncEngine/statusUpdates`` delivers a copy after each change.
public final class SyncStatus: Observable, Sendable, CustomStringConvertible {
    /// The values at one moment.
    struct Values: Sendable, Equatable {
        var pendingChangeCount = 0
        var isUpToDate = false
        var isSyncing = false
        var lastSyncDate: Date?
        var lastError: SyncError?
    }

    private let values: LockedValue<Values>
    private let registrar = ObservationRegistrar()

    init(_ values: Values = Values()) {
        self.values = LockedValue(values)
    }

    /// The local changes the server has not acknowledged yet.
    public var pendingChangeCount: Int {
        registrar.access(self, keyPath: \.pendingChangeCount)
        return values.load().pendingChangeCount
    }
    /// Whether, at the end of the last synchronization, nothing waited to be sent and the store held
    /// everything the server had.
    public var isUpToDate: Bool {
        registrar.access(self, keyPath: \.isUpToDate)
        return values.load().isUpToDate
    }
    /// Whether a synchronization is running now.
    public var isSyncing: Bool {
        registrar.access(self, keyPath: \.isSyncing)
        return values.load().isSyncing
    }
    /// When the last synchronization that reached the server ended.
    public var lastSyncDate: Date? {
        registrar.access(self, keyPath: \.lastSyncDate)
        return values.load().lastSyncDate
    }
    /// The error that stopped the last synchronization, or `nil` after one that succeeded: a
    /// ``SyncError`` naming what is wrong.
    public var lastError: (any Error)? {
        registrar.access(self, keyPath: \.lastError)
        return values.load().lastError
    }

    /// The values, in words.
    public var description: String {
        let now = values.load()
        return "SyncStatus(pending: \(now.pendingChangeCount), upToDate: \(now.isUpToDate), lastSync: \(now.lastSyncDate.map { "\($0)" } ?? "never")\(now.lastError.map { ", error: \($0)" } ?? ""))"
    }

    /// A copy of the values now, which does not change.
    func snapshot() -> SyncStatus { SyncStatus(values.load()) }

    /// Changes the values; returns whether they changed.
    @discardableResult
    func update(_ body: (inout Values) -> Void) -> Bool {
        let (old, new) = values.withValue { values -> (Values, Values) in
            let old = values
            body(&values)
            return (old, values)
        }
        guard old != new else { return false }
        // Observers hear of each property that changed.
        if old.pendingChangeCount != new.pendingChangeCount { registrar.withMutation(of: self, keyPath: \.pendingChangeCount) {} }
        if old.isUpToDate != new.isUpToDate { registrar.withMutation(of: self, keyPath: \.isUpToDate) {} }
        if old.isSyncing != new.isSyncing { registrar.withMutation(of: self, keyPath: \.isSyncing) {} }
        if old.lastSyncDate != new.lastSyncDate { registrar.withMutation(of: self, keyPath: \.lastSyncDate) {} }
        if old.lastError != new.lastError { registrar.withMutation(of: self, keyPath: \.lastError) {} }
        return true
    }
}
