import Foundation
import OpenSwiftData

/// One saved transaction as `osd history` prints it: the save's details, and its changes with the
/// names of the properties updates changed and the values deletions preserved.
struct HistoryEntry {
    let transaction: StoreHistoryTransaction
    let changes: [Change]

    /// One model's change.
    struct Change {
        var kind: StoreHistoryChange.Kind
        var model: String
        /// The row's primary key (`_id` in `osd query` and `osd export`).
        var key: Int64
        /// For an update, the properties it changed, as the models of its time named them.
        var properties: [String]
        /// For a deletion, the values of the attributes marked `.preserveValueOnDeletion`, by name.
        var preserved: [(name: String, value: TypedValue)]
    }

    init(_ transaction: StoreHistoryTransaction, changes: [StoreHistoryChange], schema: StoredSchema, layouts: HistoryFieldLayouts) {
        self.transaction = transaction
        self.changes = changes.map { change in
            let attributes = schema.entities.first { $0.name == change.entityName }?.attributes ?? []
            var properties: [String] = []
            if change.kind == .update {
                // A store written before the lists were recorded, and not saved to since: positions only.
                properties = layouts.names(change.changedProperties, of: change.entityName, recordedIn: transaction.id)
                    ?? (0..<64).filter { change.changedProperties & (1 << UInt64($0)) != 0 }.map { "#\($0)" }
            }
            let preserved = change.preservedValues.sorted { $0.key < $1.key }.compactMap { name, value in
                TypedValue(preserved: value, of: attributes.first { $0.name == name }).map { (name, $0) }
            }
            return Change(kind: change.kind, model: change.entityName, key: change.key, properties: properties, preserved: preserved)
        }
    }

    /// The transaction as lines of text: a heading, then its inserts, updates and deletions, each
    /// kind by model (in the order the models first appear) and key, one line per run of like
    /// changes, with consecutive keys written as ranges (`insert Voyage 1-5`).
    func text() -> [String] {
        var heading = "transaction \(transaction.id) at \(ValueText.iso8601(transaction.timestamp))"
        if let author = transaction.author { heading += " by \(ValueText.quoted(author))" }
        heading += " from \(transaction.bundleIdentifier) (process \(transaction.processIdentifier))"
        var lines = [heading]
        var run: [Change] = []
        func flush() {
            guard let first = run.first else { return }
            var line = "  \(first.kind.word) \(first.model) \(Self.ranges(run.map(\.key)))"
            if first.kind == .update { line += ": " + first.properties.joined(separator: ", ") }
            if !first.preserved.isEmpty { line += " (" + first.preserved.map { "\($0.name): \(ValueText.json($0.value))" }.joined(separator: ", ") + ")" }
            lines.append(line)
            run.removeAll()
        }
        var models: [String: Int] = [:]
        for change in changes where models[change.model] == nil { models[change.model] = models.count }
        let ordered = changes.sorted {
            ($0.kind.rawValue, models[$0.model] ?? 0, $0.key) < ($1.kind.rawValue, models[$1.model] ?? 0, $1.key)
        }
        for change in ordered {
            if let previous = run.last, !change.preserved.isEmpty || !previous.preserved.isEmpty
                || (previous.kind, previous.model, previous.properties) != (change.kind, change.model, change.properties) {
                flush()
            }
            run.append(change)
        }
        flush()
        return lines
    }

    /// The transaction as one line of JSON.
    func json() -> String {
        let changes = changes.map { change in
            var fields = ["\"kind\":\"\(change.kind.word)\"", "\"model\":\(ValueText.quoted(change.model))", "\"_id\":\(change.key)"]
            if change.kind == .update { fields.append("\"properties\":[" + change.properties.map(ValueText.quoted).joined(separator: ",") + "]") }
            if !change.preserved.isEmpty {
                fields.append("\"preserved\":{" + change.preserved.map { "\(ValueText.quoted($0.name)):\(ValueText.json($0.value))" }.joined(separator: ",") + "}")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let fields = [
            "\"transaction\":\(transaction.id)",
            "\"timestamp\":\(ValueText.quoted(ValueText.iso8601(transaction.timestamp)))",
            "\"author\":\(transaction.author.map(ValueText.quoted) ?? "null")",
            "\"bundle\":\(ValueText.quoted(transaction.bundleIdentifier))",
            "\"process\":\(ValueText.quoted(transaction.processIdentifier))",
            "\"origin\":\(transaction.origin)",
            "\"changes\":[" + changes.joined(separator: ",") + "]",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Keys with runs of consecutive ones as ranges: `1-3, 7, 9-10`.
    static func ranges(_ keys: [Int64]) -> String {
        var parts: [String] = []
        var index = keys.startIndex
        while index < keys.endIndex {
            var end = index
            while end + 1 < keys.endIndex, keys[end] != .max, keys[end + 1] == keys[end] + 1 { end += 1 }
            parts.append(end == index ? "\(keys[index])" : "\(keys[index])-\(keys[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }
}

extension StoreHistoryChange.Kind {
    /// The word `osd history` prints for the kind.
    var word: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }
}
