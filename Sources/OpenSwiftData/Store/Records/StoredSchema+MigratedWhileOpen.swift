extension StoredSchema {
    /// The error for a read or save that met a table or column its store no longer has, when this
    /// record, read from the store now, differs from `models`, the container's: another container
    /// migrated the store while this one had it open. `nil` when they match (the table or column
    /// went some other way, and the store's own error stands).
    ///
    /// - Parameters:
    ///   - place: the store, as its errors name it.
    ///   - cause: the store's own error, kept at the end of the message.
    package func migratedWhileOpen(models: StoredSchema, place: String, cause: String) -> SwiftDataError? {
        let changes = differences(from: models)
        guard !changes.isEmpty else { return nil }
        let version = { (schema: StoredSchema) in schema.version.map { "version \($0)" } ?? "an unversioned schema" }
        return SwiftDataError(.schemaMismatch, reason: """
            The store at \(place) was migrated while this container had it open: it now holds \(version(self)), \
            and this container's models are \(version(models)) (these models against the store: \(changes.prefix(3).joined(separator: "; "))). \
            Nothing was read or written. Open a container with the models of the store's version. (\(cause))
            """)
    }
}
