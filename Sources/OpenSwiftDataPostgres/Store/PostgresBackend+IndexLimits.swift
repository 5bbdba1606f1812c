import OpenSwiftData

extension PostgresBackend {
    /// The most bytes a B-tree index entry holds (a third of a page, less its header), after
    /// PostgreSQL compressed it.
    static let largestIndexEntry = 2_704

    /// Whether the server refused a row because an index entry of it is too large
    /// (`program_limit_exceeded`: "index row size … exceeds …", "index row requires … bytes").
    static func refusesIndexEntry(_ error: SwiftDataError) -> Bool {
        guard let reason = error.reason, reason.hasPrefix("PostgreSQL 54000:") else { return false }
        return reason.contains("index row")
    }

    /// The error for a save whose rows an index could not hold: the saved values of properties
    /// that `#Unique`, `.unique` or `#Index` name and that are longer than an index entry, by
    /// model and property, or the server's words when no single value is.
    func indexEntryTooLarge(_ error: SwiftDataError, in changes: StoreChanges) -> SwiftDataError {
        var found: [String] = []
        let rows = changes.inserts.map { ($0.entity, $0.model) } + changes.updates.map { ($0.entity, $0.model) }
        for (entity, model) in rows {
            let indexed = Set(entity.uniquenessConstraints.joined()).union(entity.indices.joined())
            let properties = entity.fields.indices.filter { indexed.contains(entity.fields[$0].name) && entity.fields[$0].hasColumn }
            guard !properties.isEmpty else { continue }
            let values = PostgresParameters(entity: entity)
            for property in properties {
                do {
                    try PropertyEncoding.encode(model, property: property, of: entity, to: values, at: Int32(property), deferring: _DeferredLinks())
                } catch {
                    continue
                }
                let size = values.byteCount(property)
                let name = "\(entity.name).\(entity.fields[property].name) (\(size) bytes)"
                if size > Self.largestIndexEntry, !found.contains(name) { found.append(name) }
            }
        }
        guard !found.isEmpty else { return error }
        return SwiftDataError(.modelValidationFailure, reason: "PostgreSQL cannot index \(found.prefix(5).joined(separator: ", "))\(found.count > 5 ? " and \(found.count - 5) more" : ""): an entry of a PostgreSQL index holds at most \(Self.largestIndexEntry) bytes (more when the value compresses), and the property is named by #Unique, .unique or #Index. Shorten the value, or leave the property out of them. Nothing was saved; the context keeps its changes. (\(error.reason ?? ""))")
    }
}
