import Foundation
import OpenSwiftData

/// The configuration of a ``JSONStore``: the file that holds the models.
///
/// ```swift
/// let configuration = JSONStoreConfiguration(name: "Trips", schema: Schema([Trip.self]), fileURL: url)
/// let container = try ModelContainer(for: Schema([Trip.self]), configurations: [configuration])
/// ```
public struct JSONStoreConfiguration: DataStoreConfiguration {
    /// The store the configuration describes.
    public typealias Store = JSONStore

    /// The name of the configuration.
    public var name: String
    /// The models the store holds, or `nil` for all of the container's models.
    public var schema: Schema?
    /// The JSON file; created by the first save.
    public var fileURL: URL

    /// Creates a configuration of a store in a JSON file.
    public init(name: String, schema: Schema? = nil, fileURL: URL) {
        self.name = name
        self.schema = schema
        self.fileURL = fileURL
    }

    /// Refuses a location that is not a file URL.
    public func validate() throws {
        guard fileURL.isFileURL else { throw DataStoreError.unsupportedFeature }
    }

    /// Configurations are equal when their names and files are.
    public static func == (lhs: JSONStoreConfiguration, rhs: JSONStoreConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.fileURL == rhs.fileURL
    }

    /// Hashes the name and the file.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(fileURL)
    }
}

/// An archival store: every model of every type, as one JSON array of snapshots in one file.
///
/// Each save reads the file, applies the inserted, updated and deleted snapshots and writes the
/// file again atomically, so a save is all or nothing. New models get `UUID` primary keys. The
/// store evaluates no predicate or sort: it asks the context to do both in memory.
public final class JSONStore: DataStore {
    /// The store's configuration type.
    public typealias Configuration = JSONStoreConfiguration
    /// The store's snapshot type.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration the store was created with.
    public let configuration: JSONStoreConfiguration
    /// The store's identifier: the file's path.
    public let identifier: String
    /// The models the store holds.
    public let schema: Schema

    /// Creates the store for a configuration; the file is created by the first save.
    public init(_ configuration: JSONStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else { throw DataStoreError.unsupportedFeature }
        self.configuration = configuration
        self.schema = schema
        // The file's path: two stores with the same file name in different folders stay apart.
        self.identifier = configuration.fileURL.path
    }

    /// Returns every model of the requested type; asks the context to filter and sort in memory.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let entityName = Schema.entityName(for: T.self)
        let snapshots = try read().filter { $0.persistentIdentifier.entityName == entityName }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    /// Applies the inserted, updated and deleted snapshots to the file, all or nothing, giving new
    /// models `UUID` keys.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        var snapshots = try read()
        var position: [PersistentIdentifier: Int] = [:]
        for (index, snapshot) in snapshots.enumerated() { position[snapshot.persistentIdentifier] = index }

        // Permanent identifiers first, so that new models that refer to each other refer to the
        // permanent identifiers.
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            let entityName = snapshot.persistentIdentifier.entityName
            remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(for: identifier, entityName: entityName, primaryKey: UUID())
        }
        for snapshot in request.inserted {
            guard let permanent = remapped[snapshot.persistentIdentifier] else { continue }
            position[permanent] = snapshots.count
            snapshots.append(snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped))
        }
        for snapshot in request.updated {
            let updated = snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped)
            if let index = position[snapshot.persistentIdentifier] {
                snapshots[index] = updated
            } else {
                position[snapshot.persistentIdentifier] = snapshots.count
                snapshots.append(updated)
            }
        }
        let deleted = Set(request.deleted.map(\.persistentIdentifier))
        snapshots.removeAll { deleted.contains($0.persistentIdentifier) }

        try write(snapshots)
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    /// Deletes the file.
    public func erase() throws {
        if FileManager.default.fileExists(atPath: configuration.fileURL.path) {
            try FileManager.default.removeItem(at: configuration.fileURL)
        }
    }

    /// Every snapshot in the file, in the order they were first saved.
    private func read() throws -> [DefaultSnapshot] {
        guard FileManager.default.fileExists(atPath: configuration.fileURL.path) else { return [] }
        // Dates keep Foundation's default form, seconds as a number: ISO 8601 text would drop
        // fractions of a second, and a store gives back exactly what it was given.
        return try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: configuration.fileURL))
    }

    private func write(_ snapshots: [DefaultSnapshot]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(snapshots).write(to: configuration.fileURL, options: .atomic)
    }
}
