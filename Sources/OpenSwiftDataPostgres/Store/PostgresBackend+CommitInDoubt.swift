import Foundation
import OpenSwiftData
import PostgresNIO

/// Saves whose commit reply was lost with the connection. The server may have committed such a
/// save or not; reporting it as failed when it was kept would make the context save it again, and
/// its new rows twice. So the store asks: every save's history record carries a random token, and
/// once the server process that ran the save has ended (its transaction is then over, one way or
/// the other), the record with that token is there or not.
extension PostgresBackend {
    /// Learns whether the server kept a save whose commit reply was lost. Returns the number of
    /// the save's history transaction when it did; throws when it did not (the save wrote nothing)
    /// or when the server cannot be asked within the configuration's
    /// ``PostgresStoreConfiguration/commitOutcomeTimeout``: the store then remembers the
    /// save, and a later save of the same new models first learns what became of it
    /// (``settleEarlierSave(of:)``).
    func settle(_ doubt: PostgresCommitInDoubt, token: Int64, inserted: [any PersistentModel]) throws -> Int64 {
        let kept: Int64?
        do {
            kept = try session.settle(doubt, token: token, namespace: namespace, within: location.commitOutcomeTimeout)
        } catch let error as SwiftDataError where error == .storeUnavailable {
            let unsettled = UnsettledSave(token: token, process: doubt.process, models: inserted)
            unsettledSaves.withValue { $0.append(unsettled) }
            throw error
        }
        guard let kept else {
            throw SwiftDataError(.storeUnavailable, reason: "The connection to \(location.displayName) was lost as the save committed, and the server did not keep the save: nothing was written. \(doubt.failure.reason ?? "")")
        }
        return kept
    }

    /// Before a save, learns what became of an earlier save of any of the same new models whose
    /// outcome was unknown. If the server kept it, throws rather than insert the models again.
    func settleEarlierSave(of changes: StoreChanges) throws {
        let anyUnsettled = unsettledSaves.withValue { saves in
            saves.removeAll { $0.isForgotten }
            return !saves.isEmpty
        }
        guard anyUnsettled else { return }
        let inserted = Set(changes.inserts.map { ObjectIdentifier($0.model) })
        try withSession { session in
            while let earlier = unsettledSaves.withValue({ saves in saves.first { $0.includes(any: inserted) } }) {
                let deadline = Date().addingTimeInterval(location.commitOutcomeTimeout)
                let kept = try session.keptTransaction(token: earlier.token, namespace: namespace, process: earlier.process, deadline: deadline)
                unsettledSaves.withValue { saves in saves.removeAll { $0 === earlier } }
                if kept != nil {
                    throw SwiftDataError(.storeFailure, reason: "An earlier save of these new models, whose connection to \(location.displayName) was lost as it committed, was kept by the server after all: the models are stored. Call rollback() and fetch them rather than insert them again. Nothing of this save was written.")
                }
            }
        }
    }
}

extension PostgresSession {
    /// Learns whether the server kept a transaction whose commit reply was lost, by the token its
    /// history record in `namespace` carries: the record's number when it did, `nil` when it did
    /// not. Throws the doubt's ``PostgresCommitInDoubt/unknownOutcome`` when the server cannot be
    /// asked within `time` (it is asked on a new connection, again and again).
    func settle(_ doubt: PostgresCommitInDoubt, token: Int64, namespace: String, within time: TimeInterval) throws -> Int64? {
        let deadline = Date().addingTimeInterval(time)
        var pause: TimeInterval = 0.05
        while true {
            do {
                return try keptTransaction(token: token, namespace: namespace, process: doubt.process, deadline: deadline)
            } catch let error as SwiftDataError where error == .storeUnavailable {
                guard Date() < deadline else { throw doubt.unknownOutcome }
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 1)
            }
        }
    }

    /// The number of the history transaction in `namespace` whose record carries `token`, or
    /// `nil` when there is none, once the server process that ran it (if it still runs) has ended.
    /// Connecting, too, gives up at `deadline`, however long the reconnection timeout.
    func keptTransaction(token: Int64, namespace: String, process: PostgresServerProcess?, deadline: Date) throws -> Int64? {
        try connecting(by: deadline) { try lookUpKeptTransaction(token: token, namespace: namespace, process: process, deadline: deadline) }
    }

    /// ``keptTransaction(token:namespace:process:deadline:)`` once connecting is bounded: ends the
    /// server process that ran it, then reads the history for the token.
    private func lookUpKeptTransaction(token: Int64, namespace: String, process: PostgresServerProcess?, deadline: Date) throws -> Int64? {
        if let process { try end(process, deadline: deadline) }
        var bindings = PostgresBindings()
        bindings.append(token)
        let rows = try query("SELECT id FROM \(namespace).osd_history WHERE token = $1", bindings)
        return rows.first.map { PostgresRowReader($0)._int64(0) }
    }

    /// Ends a server process of an earlier connection if it still runs, and waits until it has
    /// gone. A process can outlive its client's connection while it works through what it was
    /// sent; until it has gone, its transaction may still commit.
    private func end(_ process: PostgresServerProcess, deadline: Date) throws {
        var bindings = PostgresBindings()
        bindings.append(Int64(process.pid))
        bindings.append(process.start)
        let match = "FROM pg_stat_activity WHERE pid = $1 AND backend_start::text = $2"
        do {
            // Ending it is safe: a transaction it committed stays committed; one it had not is
            // rolled back, as its client's connection is gone.
            try query("SELECT pg_terminate_backend(pid) \(match)", bindings)
        } catch let error as SwiftDataError where error == .storeAccessDenied {
            // Not allowed to end it: wait for it to end by itself.
        }
        while try !query("SELECT 1::int8 \(match)", bindings).isEmpty {
            guard Date() < deadline else {
                throw SwiftDataError(.storeUnavailable, reason: "The server process \(process.pid) of a lost connection to \(location.displayName) is still running.")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}

/// A save whose outcome the store could not learn, and the new models it inserted (held weakly).
final class UnsettledSave: @unchecked Sendable {
    // @unchecked Sendable: immutable; its models are only compared by identity and checked for
    // being gone, which Swift's weak references allow from any thread.
    let token: Int64
    let process: PostgresServerProcess?
    private let models: [WeakModel]

    init(token: Int64, process: PostgresServerProcess?, models: [any PersistentModel]) {
        self.token = token
        self.process = process
        self.models = models.map { WeakModel(model: $0) }
    }

    /// Whether none of its models is still in use: nobody can insert them again.
    var isForgotten: Bool { models.allSatisfy { $0.model == nil } }

    /// Whether it inserted any of these models.
    func includes(any identifiers: Set<ObjectIdentifier>) -> Bool {
        models.contains { $0.model.map { identifiers.contains(ObjectIdentifier($0)) } ?? false }
    }
}
