import OpenSwiftData
import OpenSwiftDataPostgres

/// What a command's STORE argument names, and the one place the tools open a store through.
package enum StoreArgument {
    /// The kinds of store the tools open, asked in order; the last one is the default, which
    /// opens a location no other kind recognises and says what is wrong with it. A new kind of
    /// store adds its provider here.
    static var providers: [any StoreToolingProvider.Type] { [PostgresStoreAccess.self, AppleStoreFile.self, StoreFile.self] }

    /// Opens the store `store` names (for a server that keeps several configurations, the one
    /// named `name`).
    static func open(_ store: String, name: String, access: StoreToolingAccess = .reading) throws -> any StoreTooling {
        let provider = try providers.first { try $0.recognizes(store) } ?? providers[providers.count - 1]
        return try provider.openTooling(at: store, name: name, access: access)
    }

    /// Whether nothing is at `location` yet: no file, no namespace of the configuration `name`.
    static func isVacant(_ location: String, name: String) throws -> Bool {
        let provider = try providers.first { try $0.recognizes(location) } ?? providers[providers.count - 1]
        return try provider.isVacant(location, name: name)
    }

    /// Creates an empty store at `location` (for a server, the configuration named `name`) with
    /// the tables `schema` records, calls `body` with it, and removes it again when `body` throws.
    static func creatingStore<R>(at location: String, name: String, schema: StoredSchema, _ body: (any StoreTooling) throws -> R) throws -> R {
        let provider = try providers.first { try $0.recognizes(location) } ?? providers[providers.count - 1]
        return try provider.creatingStore(at: location, name: name, schema: schema, body)
    }

    /// Whether `location` names a store some provider recognises (a server's URL, an SQLite
    /// file), rather than another kind of file; throws when a file there cannot be read.
    static func recognizes(_ location: String) throws -> Bool {
        try providers.contains { try $0.recognizes(location) }
    }
}
