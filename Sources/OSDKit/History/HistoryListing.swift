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
        let lines = try transactions(storeAt: store, name: name)
        if json {
            output("[")
            for (index, transaction) in lines.enumerated() {
                output(transaction.json() + (index < lines.count - 1 ? "," : ""))
            }
            output("]")
        } else {
            for transaction in lines { transaction.text().forEach(output) }
        }
    }

    /// The transactions the listing selects, oldest first, with their changes named.
    func transactions(storeAt store: String, name: String) throws -> [HistoryEntry] {
        if limit != nil && last != nil { throw ToolError("--limit and --last cannot be combined: --limit takes the oldest transactions, --last the newest.") }
        if let count = limit ?? last, count < 0 { throw ToolError("--limit and --last take a number of transactions, 0 or more.") }
        let source = try historySource(store, name: name)
        let models = try model.map { name -> Set<String> in
            let entity = try source.schema.entity(named: name)
            return Set([entity.name] + source.schema.descendants(of: entity.name).map(\.name))
        }
        let layouts = try source.historyFieldLayouts()
        let wanted = last ?? limit ?? .max
        var entries: [HistoryEntry] = []
        guard wanted > 0 else { return entries }
        try source.forEachHistoryTransaction(after: after, author: author, newestFirst: last != nil) { transaction in
            let changes = models.map { models in transaction.changes.filter { models.contains($0.entityName) } } ?? transaction.changes
            guard models == nil || !changes.isEmpty else { return true }
            entries.append(HistoryEntry(transaction, changes: changes, schema: source.schema, layouts: layouts))
            return entries.count < wanted
        }
        return last != nil ? entries.reversed() : entries
    }
}
