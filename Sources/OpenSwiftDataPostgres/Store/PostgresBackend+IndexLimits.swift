import OpenSwiftData

extension PostgresBackend {
    /// The most bytes a B-tree index entry holds (a third of a page, less its header), after
    /// PostgreSQL compressed it.
    static let largestIndexEntry = 2_704

    /// The error for a save whose rows an index could not hold: the saved values of the
    /// properties each `#Unique`, `.unique` or `#Index` names, when together longer than an index
    /// entry, by model and property, or the server's words when none are.
    func indexEntryTooLarge(_ error: SwiftDataError, in changes: StoreChanges) -> SwiftDataError {
        var found: [String] = []
        let rows = changes.inserts.map { ($0.entity, $0.model) } + changes.updates.map { ($0.entity, $0.model) }
        for (entity, model) in rows {
            let position = Dictionary(entity.fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            let values = PostgresParameters(entity: entity)
            for names in entity.uniquenessConstraints + entity.indices {
                let properties = names.compactMap { position[$0] }.filter { entity.fields[$0].hasColumn }
                var size = 0
                for property in properties {
                    do {
                        try PropertyEncoding.encode(model, property: property, of: entity, to: values, at: Int32(property), deferring: _DeferredLinks())
                    } catch {
                        continue
                    }
                    size += values.byteCount(property)
                }
                let description = "\(properties.map { "\(entity.name).\(entity.fields[$0].name)" }.joined(separator: " + ")) (\(size) bytes)"
                if size > Self.largestIndexEntry, !found.contains(description) { found.append(description) }
            }
        }
        guard !found.isEmpty else { return error }
        return SwiftDataError(.modelValidationFailure, reason: "PostgreSQL cannot index \(found.prefix(5).joined(separator: ", "))\(found.count > 5 ? " and \(found.count - 5) more" : ""): an entry of a PostgreSQL index holds at most \(Self.largestIndexEntry) bytes (more when the values compress), and #Unique, .unique or #Index names these properties together. Shorten the values, or leave the properties out of them. Nothing was saved; the context keeps its changes. (\(error.reason ?? ""))")
    }
}
