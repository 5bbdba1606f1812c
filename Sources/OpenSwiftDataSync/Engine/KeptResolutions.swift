import Foundation
import OpenSwiftData

/// A list of what the server decided against this device's pushes — the conflicts it lost, the
/// changes the rules refused — kept in the store beside the models, written in the same
/// transaction as the push's acknowledgment, so that a device stopped or killed after a push
/// still lists them when it starts again. Most recent last, at most ``limit``.
struct KeptResolutions<Element: Codable & Hashable & Sendable>: Sendable {
    /// The records' domain.
    let domain: String
    /// How many the list keeps.
    static var limit: Int { 1000 }
    /// The elements, oldest first, with their records' keys.
    private(set) var entries: [(key: String, element: Element)] = []

    init(domain: String) {
        self.domain = domain
    }

    /// The elements, oldest first.
    var elements: [Element] { entries.map(\.element) }

    /// The list the store keeps.
    static func load(domain: String, from store: ReplicationStore) throws -> KeptResolutions {
        var list = KeptResolutions(domain: domain)
        let decoder = JSONDecoder()
        try store.records.forEachCompanionRecord(domain: domain, keyPrefix: "") { key, value in
            list.entries.append((key, try decoder.decode(Element.self, from: Data(value))))
        }
        return list
    }

    /// Adds the elements a push of the batch `sequence` was answered with, after those kept;
    /// with `replacingEqual`, an element equal to one kept replaces it (each once, where it came
    /// last). Returns the records that make the store's list this one.
    mutating func append(_ elements: [Element], batch sequence: Int64, replacingEqual: Bool) throws -> [CompanionRecord] {
        guard !elements.isEmpty else { return [] }
        var records: [CompanionRecord] = []
        if replacingEqual {
            let added = Set(elements)
            for entry in entries where added.contains(entry.element) {
                records.append(CompanionRecord(domain: domain, key: entry.key, value: nil))
            }
            entries.removeAll { added.contains($0.element) }
        }
        let encoder = JSONEncoder()
        for (index, element) in elements.enumerated() {
            // Keys sort as the pushes and their answers came: the batch, then the place in its answer.
            let key = Self.padded(sequence, width: 20) + "-" + Self.padded(Int64(index), width: 6)
            records.append(CompanionRecord(domain: domain, key: key, value: Array(try encoder.encode(element))))
            entries.append((key, element))
        }
        if entries.count > Self.limit {
            for entry in entries.prefix(entries.count - Self.limit) {
                records.append(CompanionRecord(domain: domain, key: entry.key, value: nil))
            }
            entries.removeFirst(entries.count - Self.limit)
        }
        // A batch answered again has the same keys: its records are written, not removed.
        let kept = Set(entries.map(\.key))
        return records.filter { $0.value != nil || !kept.contains($0.key) }
    }

    private static func padded(_ number: Int64, width: Int) -> String {
        let digits = String(max(number, 0))
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
