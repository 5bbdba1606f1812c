import Foundation

/// The property lists a store's history refers to, so that an update saved before a migration
/// names the properties it changed, not those now at their positions.
///
/// The history records an update's properties as a mask over the model's property list (bit `i`
/// is property `i`). A migration that adds, removes or reorders properties changes that list; each
/// store records the list of every entity, with the first history transaction it applies to,
/// whenever the list differs from the last one recorded (when the store is created, and when it is
/// opened for saving with other models: after a migration), in `osd_metadata` as `historyFields`.
/// Reading a transaction maps its masks through the list of its time to the models' properties
/// now, by name (or by the `originalName` of a renamed property); a property that no longer exists
/// drops out. Stores written before the record begin it with the list they are next opened with.
package struct HistoryFieldLayouts: Sendable, Equatable {
    /// The property names of each entity, from a history transaction on.
    package struct Layout: Codable, Sendable, Equatable {
        /// The first transaction whose masks refer to these lists.
        package var from: Int64
        /// Each entity's property names, in the order of its properties.
        package var entities: [String: [String]]
    }

    /// The metadata key of the record.
    package static let metadataKey = "historyFields"

    /// The lists, oldest first.
    package private(set) var layouts: [Layout] = []

    package init() {}

    /// The record of a new store: the entities' lists, from the first transaction on.
    package init(first entities: [Schema.Entity]) {
        _ = record(Self.fields(of: entities), from: 0)
    }

    /// The record as `json()` wrote it.
    package init(json: String, place: String) throws {
        do {
            layouts = try JSONDecoder().decode([Layout].self, from: Data(json.utf8))
        } catch {
            throw SwiftDataError(.storeIsCorrupt, reason: "The record of the history's property lists (osd_metadata \(Self.metadataKey)) in \(place) cannot be read: \(error)")
        }
    }

    /// The record, as JSON text.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(layouts), as: UTF8.self)
    }

    /// Each entity's property names, in order.
    package static func fields(of entities: [Schema.Entity]) -> [String: [String]] {
        Dictionary(entities.map { ($0.name, $0.fields.map(\.name)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Records `current` as the lists of transactions from `next` on, unless they are the lists
    /// recorded last. Returns whether the record changed.
    package mutating func record(_ current: [String: [String]], from next: Int64) -> Bool {
        if layouts.last?.entities == current { return false }
        if layouts.isEmpty {
            // The first record: the history so far was written with these lists, as far as
            // anything can tell.
            layouts = [Layout(from: 0, entities: current)]
        } else {
            layouts.append(Layout(from: next, entities: current))
        }
        return true
    }

    /// The mask of an update recorded in transaction `id`, as a mask of `entity`'s properties now.
    package func mask(_ mask: UInt64, of entity: Schema.Entity, recordedIn id: Int64) -> UInt64 {
        guard let layout = layouts.last(where: { $0.from <= id }), let names = layout.entities[entity.name] else { return mask }
        let fields = entity.fields
        if names.count == fields.count && zip(names, fields).allSatisfy({ $0 == $1.name }) { return mask }
        var mapped: UInt64 = 0
        for (bit, name) in names.enumerated().prefix(64) where mask & (1 << UInt64(bit)) != 0 {
            guard let index = fields.firstIndex(where: { $0.name == name }) ?? fields.firstIndex(where: { $0.originalName == name }),
                  index < 64 else { continue }
            mapped |= 1 << UInt64(index)
        }
        return mapped
    }

    /// The names of the properties a mask recorded in transaction `id` marks, in the entity's
    /// list of that time, with `#i` for a bit past the list's end; `nil` when the record holds no
    /// list of the entity for that transaction.
    package func names(_ mask: UInt64, of entityName: String, recordedIn id: Int64) -> [String]? {
        guard let names = layouts.last(where: { $0.from <= id })?.entities[entityName] else { return nil }
        return (0..<64).compactMap { bit in
            guard mask & (1 << UInt64(bit)) != 0 else { return nil }
            return bit < names.count ? names[bit] : "#\(bit)"
        }
    }
}
