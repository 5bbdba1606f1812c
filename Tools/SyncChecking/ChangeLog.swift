import Foundation
import Logging
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import PostgresNIO

/// The server's change log of a check run: every pushed value with its clock.
struct ChangeLog {
    struct Entry {
        /// The entry's number in the server's log.
        var seq: Int64
        var id: String
        var property: String
        var clock: SyncClock
        /// The value as the check compares it, or `nil` for a deletion.
        var value: SyncValue?
    }

    var entries: [Entry] = []
    /// The model key of each synchronized identifier.
    var keyOf: [String: String] = [:]
    var idOf: [String: String] = [:]
    var deleted: Set<String> = []

    static func read(postgresURL: String, namespace: String) async throws -> ChangeLog {
        try await withCheckDatabase(postgresURL: postgresURL) { client, logger in
            return try await client.withTransaction(logger: logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(SyncDatabase.lockKey(of: namespace)))"), logger: logger)
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT seq, id, property, clock, value FROM \"\(namespace)\".change_log ORDER BY seq"), logger: logger)
                var log = ChangeLog()
                let decoder = JSONDecoder()
                for try await (seq, id, property, clock, value) in rows.decode((Int64, String, String, String, String).self) {
                    let entry = Entry(
                        seq: seq, id: id, property: property, clock: try decoder.decode(SyncClock.self, from: Data(clock.utf8)),
                        value: property.isEmpty ? nil : try decoder.decode(SyncValue.self, from: Data(value.utf8)))
                    log.add(entry)
                }
                return log
            }
        }
    }

    /// Adds an entry read from the server's log.
    mutating func add(_ entry: Entry) {
        entries.append(entry)
        if entry.property.isEmpty { deleted.insert(entry.id) }
        if entry.property == "key", case .value(.text(let key)) = entry.value {
            keyOf[entry.id] = key
            idOf[key] = entry.id
        }
    }

    /// A model's entries, for a violation's message.
    func describe(key: String) -> String {
        guard let id = idOf[key] else { return "none (never pushed)" }
        return entries.filter { $0.id == id }.map { "\($0.property.isEmpty ? "deleted" : $0.property)@\($0.clock)=\($0.value.map { text($0) } ?? "")" }
            .joined(separator: ", ")
    }

    /// The value as the check's dumps write it: a relationship to a model deleted, or one the
    /// device's user does not see (outside `visible`, when given), holds nothing.
    func text(_ value: SyncValue, visible: Set<String>? = nil) -> String {
        switch value {
        case .value(.text(let text)): text
        case .value(.integer(let number)): "\(number)"
        case .value(.real(let number)): "\(number)"
        case .value(.null): "nil"
        case .reference(let id): deleted.contains(id) || visible.map { !$0.contains(id) } == true ? "nil" : keyOf[id] ?? "unknown \(id)"
        default: "\(value)"
        }
    }

    /// Where the final state breaks the per-property rule or the deletion rule. With `visible`
    /// (the models the server lets the state's user see), a model outside it must be absent.
    func violations(in final: CheckState, visible: Set<String>? = nil) -> [String] {
        var problems: [String] = []
        var latest: [String: [String: Entry]] = [:]
        for entry in entries where !entry.property.isEmpty && entry.property != "key" {
            if let current = latest[entry.id]?[entry.property], current.clock >= entry.clock { continue }
            latest[entry.id, default: [:]][entry.property] = entry
        }
        for (id, key) in keyOf.sorted(by: { $0.key < $1.key }) {
            let row = final.rows[key]
            if deleted.contains(id) {
                if row != nil { problems.append("\(key) was deleted (clock-stamped deletion in the log) but is still there") }
                continue
            }
            if let visible, !visible.contains(id) {
                if row != nil { problems.append("\(key) is held, but the server neither has the user own it nor shares it with them") }
                continue
            }
            guard let row else {
                problems.append("\(key) was never deleted but is gone")
                continue
            }
            for (property, entry) in latest[id] ?? [:] {
                guard let value = entry.value else { continue }
                let expected = text(value, visible: visible)
                if row[property] != expected {
                    problems.append("\(key).\(property) is \(row[property] ?? "absent"), but the latest write (\(entry.clock)) is \(expected)")
                }
            }
        }
        for key in final.rows.keys where idOf[key] == nil {
            problems.append("\(key) is in the stores but no client pushed it")
        }
        return problems
    }

    /// The writes of one client that are lost: its last committed value of a property of a model
    /// that still exists, which never reached the server. With `owned` (the models the client's
    /// user owns at the end, when users share models), only writes to those models, relating them
    /// to those models, count: the server refuses changes to shared models it no longer shares or
    /// shares read-only, and hanging a model off one shared read-only. Writes to the models in
    /// `refused` (whose changes the server refused to this client, whole) do not count either.
    /// Where the last writes are uncertain (their saves may not have committed: each was cut off
    /// by a kill), one of them or the last certain write before them must have reached the server.
    /// Where every write of a property is uncertain, none need have reached it (none may have
    /// committed: the store holds the value from before them, as the server does), unless one
    /// made the model: a model that is there at the end was made, so that save committed, and it
    /// or a later write must have reached the server.
    func lostWrites(_ writes: [LoggedWrite], client: Int, in final: CheckState, owned: Set<String>? = nil, refused: Set<String> = []) -> [String] {
        // The last write of each property, of every write: a later write the server refused
        // replaced the earlier on the device, so the earlier is not what the device sent.
        var last: [String: (certain: CheckWrite?, uncertain: [CheckWrite])] = [:]
        for logged in writes {
            let slot = logged.write.key + "\u{1F}" + logged.write.property
            if logged.isCertain {
                last[slot] = (logged.write, [])
            } else {
                last[slot, default: (nil, [])].uncertain.append(logged.write)
            }
        }
        var problems: [String] = []
        for slot in last.keys.sorted() {
            guard let (certain, uncertain) = last[slot] else { continue }
            // Newest first, so that a write none of them reached is reported by the newest value.
            let candidates: [CheckWrite]
            if let certain {
                candidates = uncertain.reversed() + [certain]
            } else if let made = uncertain.firstIndex(where: \.makesModel) {
                candidates = uncertain[made...].reversed()
            } else {
                // Saves cut off by a kill before they committed (a change or a deletion of a model
                // another client made) leave the store as the server has it; whether every store
                // agrees with the server is checked apart.
                continue
            }
            let reasons = candidates.compactMap { lost($0, client: client, in: final, owned: owned, refused: refused) }
            guard reasons.count == candidates.count, let reason = reasons.first else { continue }
            // The newest is uncertain when any is: the report says so, since a kill decides it.
            problems.append(uncertain.isEmpty ? reason : reason + " (recorded as begun, not as committed: a kill cut its save off)")
        }
        return problems
    }

    /// Why `write`, a client's last write of its property, is lost, or `nil` when it reached the
    /// server or does not count (see ``lostWrites(_:client:in:owned:refused:)``).
    private func lost(_ write: CheckWrite, client: Int, in final: CheckState, owned: Set<String>?, refused: Set<String>) -> String? {
        if let id = idOf[write.key], refused.contains(id) { return nil }
        if let owned {
            guard let id = idOf[write.key], owned.contains(id) else { return nil }
            // A model hung off a group its user does not own (one shared read-only, which the
            // server refuses) is not checked; one off a group deleted since holds nothing.
            if write.property == "group", write.value != "nil",
               idOf[write.value].map({ owned.contains($0) || deleted.contains($0) }) != true { return nil }
        }
        if write.isDeletion {
            guard let id = idOf[write.key], !deleted.contains(id) else { return nil }
            return "client \(client)'s deletion of \(write.key) never reached the server"
        }
        guard final.rows[write.key] != nil else { return nil }
        guard let id = idOf[write.key] else { return "client \(client)'s \(write.key) never reached the server" }
        // A relationship to a model deleted since holds nothing, however it reached the server.
        var written = write.value
        if write.property == "group", let target = idOf[written], deleted.contains(target) { written = "nil" }
        let reached = entries.contains { $0.id == id && $0.property == write.property && $0.value.map { text($0) } == written }
        return reached ? nil : "client \(client)'s \(write.key).\(write.property) = \(write.value) never reached the server"
    }
}
