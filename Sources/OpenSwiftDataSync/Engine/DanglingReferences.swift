import Foundation
import OpenSwiftData

/// The relationships a pull could not set yet, kept in the store (`sync.dangling`, keyed by
/// `id property`) and written in the same transactions as the models.
///
/// A pull is applied one page at a time, and a row of one page may name models that a later page
/// brings. Its relationship holds the models the store has; the record keeps every identifier the
/// row named and the clock of that value. The apply of a later page that brings one of them sets
/// the relationship again, unless the property changed since: its known clock (``KnownClocks``) is
/// another, or a local change of it is pending. A pull's last page drops what is left: those models
/// are not the user's (deleted, or hidden by the server's rules), and the relationship keeps the
/// others, as a delete rule's nullify leaves it.
struct DanglingReferences {
    static let domain = "sync.dangling"

    /// The models a row's relationship named, and the clock of that value.
    struct Reference {
        var targets: [String]
        var clock: SyncClock
    }

    /// The records, by model identifier and property.
    private(set) var references: [String: [String: Reference]] = [:]
    /// The records set or removed since they were read.
    private var changed: Set<Key> = []

    private struct Key: Hashable {
        var id: String
        var property: String
    }

    /// The records in the store.
    static func load(from store: ReplicationStore) throws -> DanglingReferences {
        var result = DanglingReferences()
        try store.records.forEachCompanionRecord(domain: domain, keyPrefix: "") { key, bytes in
            guard let space = key.lastIndex(of: " ") else {
                throw SyncError(.storeFailure, "The sync engine's record of a relationship to set, \(key), has no property name")
            }
            var reader = SyncJSONReader(bytes)
            do {
                var targets: [String] = []
                var clock: SyncClock?
                try reader.readObject { reader, field throws(SyncJSONError) in
                    switch field {
                    case "targets": try reader.readArray { reader throws(SyncJSONError) in targets.append(try reader.readString()) }
                    case "clock": clock = try SyncClock(json: &reader)
                    default: try reader.skipValue()
                    }
                }
                guard let clock else { throw reader.problem("a clock") }
                result.references[String(key[..<space]), default: [:]][String(key[key.index(after: space)...])] = Reference(targets: targets, clock: clock)
            } catch {
                throw SyncError(.storeFailure, "The sync engine's record of a relationship to set, \(key), cannot be read: \(error)")
            }
        }
        return result
    }

    /// Whether no relationship waits for its models.
    var isEmpty: Bool { references.isEmpty }

    /// Records the models a relationship waits for, or removes its record (`nil`).
    mutating func set(_ reference: Reference?, of id: String, property: String) {
        guard reference != nil || references[id]?[property] != nil else { return }
        references[id, default: [:]][property] = reference
        if references[id]?.isEmpty == true { references[id] = nil }
        changed.insert(Key(id: id, property: property))
    }

    /// Removes the records of a model's relationships.
    mutating func removeAll(of id: String) {
        for property in references[id].map({ Array($0.keys) }) ?? [] { set(nil, of: id, property: property) }
    }

    /// Removes every record.
    mutating func removeAll() {
        for id in Array(references.keys) { removeAll(of: id) }
    }

    /// The records to write for what changed since they were read.
    var records: [CompanionRecord] {
        changed.map { key in
            guard let reference = references[key.id]?[key.property] else {
                return CompanionRecord(domain: Self.domain, key: "\(key.id) \(key.property)", value: nil)
            }
            var writer = SyncJSONWriter()
            writer.object { writer in
                writer.key("targets")
                writer.array { writer in
                    for target in reference.targets {
                        writer.element()
                        writer.string(target)
                    }
                }
                writer.key("clock")
                reference.clock.write(json: &writer)
            }
            return CompanionRecord(domain: Self.domain, key: "\(key.id) \(key.property)", value: writer.bytes)
        }
    }
}

extension SyncValue {
    /// The identifiers of the models a relationship's value names.
    var targets: [String] {
        switch self {
        case .reference(let id): [id]
        case .references(let ids): ids
        case .value: []
        }
    }
}
