/// A primary key a custom data store chose: its type and its JSON form, so that equal keys of one
/// type are equal and keys of different types (a `String` and a `UUID` of the same text) are not.
struct ExternalKey: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The key's type, as `String(reflecting:)` names it.
    let type: String
    /// The key encoded as JSON.
    let json: String

    init<T: Codable>(_ key: T) throws {
        type = String(reflecting: T.self)
        do {
            json = String(decoding: try JSONCoding.encoder().encode(key), as: UTF8.self)
        } catch {
            throw SwiftDataError(.modelValidationFailure, reason: "The primary key \(key) of type \(type) cannot be encoded: \(error)")
        }
    }

    var description: String { json }
}

/// The keys one custom data store chose, each with a number of its own: the context and the store
/// seam work with 64-bit keys, and a store's key is translated at the seam. Numbers are unique
/// across stores, so a number alone names the entity and key.
///
/// A table lives as long as something uses its store: the store's adapter (and so its container)
/// and every location of the store's entities (and so every model and identifier of them). When
/// the last of them goes, the table and its keys go with it, so that a process that opens store
/// after store keeps only the keys of those in use. An identifier encoded while a table lived
/// names the store's own key, and decodes later, into the store's next table, to an identifier
/// equal to the ones the store then hands out.
final class ExternalKeyTable: Sendable {
    /// A key of one entity.
    struct Entry: Hashable, Sendable {
        let entityName: String
        let key: ExternalKey
    }

    private struct Known: Sendable {
        var numbers: [Entry: Int64] = [:]
        var entries: [Int64: Entry] = [:]
    }

    /// The identifier of the store whose keys the table holds.
    let storeIdentifier: String
    private let known = LockedValue(Known())

    fileprivate init(storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
    }

    deinit { ExternalKeyTable.tableEnded(for: storeIdentifier) }

    /// The number of a key, given one the first time the table sees it.
    func number(for key: ExternalKey, entityName: String) -> Int64 {
        let entry = Entry(entityName: entityName, key: key)
        return known.withValue { known in
            if let number = known.numbers[entry] { return number }
            let number = Self.nextNumber.withValue { next in
                defer { next += 1 }
                return next
            }
            known.numbers[entry] = number
            known.entries[number] = entry
            return number
        }
    }

    /// The entity and key that a number stands for.
    func entry(for number: Int64) -> Entry? {
        known.withValue { $0.entries[number] }
    }

    /// How many keys the table holds.
    var count: Int { known.withValue { $0.entries.count } }

    // MARK: The tables in use

    /// A table of the registry, held weakly: the registry never keeps a table alive.
    private struct Registered: @unchecked Sendable {
        // @unchecked Sendable: a weak reference to a Sendable class, read and written only while
        // the registry's lock is held.
        weak var table: ExternalKeyTable?
    }

    /// The table of each store in use, by store identifier.
    private static let registry = LockedValue([String: Registered]())
    /// The next number any table gives a key.
    private static let nextNumber = LockedValue<Int64>(1)

    /// The table of a store's keys: the one in use, or a new one.
    static func table(for storeIdentifier: String) -> ExternalKeyTable {
        registry.withValue { registry in
            if let table = registry[storeIdentifier]?.table { return table }
            let table = ExternalKeyTable(storeIdentifier: storeIdentifier)
            registry[storeIdentifier] = Registered(table: table)
            return table
        }
    }

    /// The table of a store's keys, if one is in use.
    static func existingTable(for storeIdentifier: String) -> ExternalKeyTable? {
        registry.withValue { registry in
            registry.isEmpty ? nil : registry[storeIdentifier]?.table
        }
    }

    /// Forgets a store's entry once its table has gone; a table made for the store since stays.
    private static func tableEnded(for storeIdentifier: String) {
        // The store's current table, if any, leaves the lock with the caller: were its last
        // reference released inside, its own `deinit` would take the lock again.
        let current = registry.withValue { registry in
            let current = registry[storeIdentifier]?.table
            if current == nil { registry[storeIdentifier] = nil }
            return current
        }
        withExtendedLifetime(current) {}
    }
}
