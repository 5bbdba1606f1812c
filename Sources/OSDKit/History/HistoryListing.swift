import Foundation
import OpenSwiftData

/// `osd history`: the saves a store's history records, who made them, when, from which process,
/// and what each changed, read without the app's model classes.
///
/// An update names the properties it changed as the models of its time named them (a store
/// records each version's property lists; see docs/StorageLayout.md), so the history of a store
/// migrated since reads as it was written.
package struct HistoryListing {
    /// Only transactions after this one (a `DefaultHistoryToken`'s number).
    package var after: Int64 = 0
    /// At most this many transactions, the oldest first.
    package var limit: Int?
    /// Only the newest this many transactions.
    package var last: Int?
    /// Only transactions saved by a context with this `author`.
    package var author: String?
    /// Only changes to this model and the models that inherit from it.
    package var model: String?

    /// A listing of the transactions after `after`, at most `limit` or the newest `last`, by
    /// `author`, of changes to `model`; `nil` for no such restriction.
    package init(after: Int64 = 0, limit: Int? = nil, last: Int? = nil, author: String? = nil, model: String? = nil) {
        self.after = after
        self.limit = limit
        self.last = last
        self.author = author
        self.model = model
    }

    /// Writes the transactions of the store at `store`, as text or as JSON (an array with one
    /// transaction per line), through `output`, one line at a time.
    package func run(storeAt store: String, name: String, json: Bool, output: (String) -> Void) throws {
        try checkArguments()
        let source = try StoreArgument.open(store, name: name)
        let entries = try transactions(in: source, after: after, newestFirst: last != nil, count: last ?? limit).entries
        if json {
            output("[")
            for (index, entry) in entries.enumerated() {
                output(entry.json() + (index < entries.count - 1 ? "," : ""))
            }
            output("]")
        } else {
            for entry in entries { entry.text().forEach(output) }
        }
    }

    /// How long `follow` waits between two looks at the store.
    static let followInterval: TimeInterval = 0.5

    /// Writes the transactions of the store at `store` as ``run(storeAt:name:json:output:)`` does
    /// (JSON as one transaction per line, without the enclosing array), then each transaction
    /// any process saves, within ``followInterval`` of its commit, until the process is stopped
    /// or reading fails.
    package func follow(storeAt store: String, name: String, json: Bool, output: (String) -> Void) throws {
        try checkArguments()
        if limit != nil { throw ToolError("--follow cannot be combined with --limit, which takes the oldest transactions: use --last.") }
        let source = try StoreArgument.open(store, name: name, access: .following)
        var read = try transactions(in: source, after: after, newestFirst: last != nil, count: last)
        while true {
            for entry in read.entries {
                if json { output(entry.json()) } else { entry.text().forEach(output) }
            }
            Thread.sleep(forTimeInterval: Self.followInterval)
            try source.readAgain()
            read = try transactions(in: source, after: read.highest, newestFirst: false, count: nil)
        }
    }

    private func checkArguments() throws {
        if limit != nil && last != nil { throw ToolError("--limit and --last cannot be combined: --limit takes the oldest transactions, --last the newest.") }
        if let count = limit ?? last, count < 0 { throw ToolError("--limit and --last take a number of transactions, 0 or more.") }
    }

    /// The transactions after `after` the listing selects (at most `count`, oldest or newest
    /// first), oldest first, with their changes named; and the highest transaction read, so that a
    /// later read goes on from it.
    func transactions(in source: any StoreTooling, after: Int64, newestFirst: Bool, count: Int?) throws -> (entries: [HistoryEntry], highest: Int64) {
        let models = try model.map { name -> Set<String> in
            let entity = try source.schema.entity(named: name)
            return Set([entity.name] + source.schema.descendants(of: entity.name).map(\.name))
        }
        let layouts = try source.historyFieldLayouts()
        var entries: [HistoryEntry] = []
        var highest = after
        guard count != 0 else {
            // Nothing to list; a later read goes on from the newest transaction.
            try source.forEachHistoryTransaction(after: after, author: author, newestFirst: true) { transaction in
                highest = max(highest, transaction.id)
                return false
            }
            return (entries, highest)
        }
        try source.forEachHistoryTransaction(after: after, author: author, newestFirst: newestFirst) { transaction in
            highest = max(highest, transaction.id)
            let changes = models.map { models in transaction.changes.filter { models.contains($0.entityName) } } ?? transaction.changes
            guard models == nil || !changes.isEmpty else { return true }
            entries.append(HistoryEntry(transaction, changes: changes, schema: source.schema, layouts: layouts))
            return entries.count < count ?? .max
        }
        return (newestFirst ? entries.reversed() : entries, highest)
    }
}
