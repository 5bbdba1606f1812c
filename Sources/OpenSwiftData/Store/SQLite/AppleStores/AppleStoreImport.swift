import Foundation

/// Importing a store Apple's Core Data or SwiftData wrote into an OpenSwiftData store, through
/// the tools' protocol (``StoreTransfer``): what `osd import --from-apple` and
/// ``ModelContainer/importAppleStore(at:ignoring:converting:)`` run.
///
/// The Apple store is never modified: it is copied (with its `-wal` and `-shm`) into a folder of
/// its own and read there. The rows land in one transaction of the target, recorded in its history
/// by an author that names the Apple store's UUID, so a second import of the same store finds it
/// and imports nothing.
package enum AppleStoreImport {
    /// The history author of an import of the store with this UUID.
    static func author(storeUUID: String?) -> String { "Apple store import \(storeUUID ?? "")" }

    /// The domain of the companion records that map each imported row's Core Data URI to its
    /// model and key in the target (`Entity/key`).
    static let identifierDomain = "apple.uri"

    /// What an import brought: the rows per model, and the new identifier of each row by its
    /// Core Data URI (`x-coredata://STORE-UUID/Entity/pKEY`).
    package struct Outcome {
        package var rows: [(model: String, rows: Int)]
        package var identifiers: [String: PersistentIdentifier]
    }

    /// Imports the store at `path` into `target`; returns what it brought, or `nil` when this
    /// store was imported into `target` before.
    ///
    /// - Throws: ``SwiftDataError/schemaMismatch`` naming every model, property and relationship
    ///   of the store with no home in the target's models (leave them out with `ignoring`);
    ///   ``SwiftDataError/storeIsCorrupt`` for a store whose model or rows cannot be read;
    ///   ``SwiftDataError/storeIsNotSQLite`` for a file that is not a store Apple's frameworks
    ///   wrote. Nothing is written then.
    package static func run(
        appleStoreAt path: String, into target: any StoreTooling, ignoring: Set<String>, conversions: [String: AppleValueConversion] = [:]
    ) throws -> Outcome? {
        try readingCopy(of: path, conversions: conversions) { source in
            try importRows(of: source, storedAt: path, into: target, ignoring: ignoring)
        }
    }

    /// Imports the store at `path` into a new store made for its model: `create` is given the
    /// record of that store (``StoredSchema/keptAsModels()`` of its model without what `ignoring` names) and
    /// a body to run on the store it creates, and removes that store again when the body throws
    /// (``StoreToolingProvider/creatingStore(at:name:schema:_:)``).
    ///
    /// - Throws: As ``run(appleStoreAt:into:ignoring:conversions:)``, and what `create` throws.
    package static func run(
        appleStoreAt path: String, ignoring: Set<String>, conversions: [String: AppleValueConversion] = [:],
        intoNewStore create: (StoredSchema, (any StoreTooling) throws -> Outcome?) throws -> Outcome?
    ) throws -> Outcome? {
        try readingCopy(of: path, conversions: conversions) { source in
            // A model left out takes the relationships to it along.
            let toModelsLeftOut = source.schema.entities.flatMap { entity in
                entity.recordedRelationships.filter { ignoring.contains($0.destination) }.map { "\(entity.name).\($0.name)" }
            }
            return try create(source.schema.leavingOut(ignoring).keptAsModels()) { target in
                try importRows(of: source, storedAt: path, into: target, ignoring: ignoring.union(toModelsLeftOut))
            }
        }
    }

    /// Calls `body` with the store at `path` opened from a copy of its own, removed afterwards.
    private static func readingCopy<R>(
        of path: String, conversions: [String: AppleValueConversion], _ body: (AppleStoreFile) throws -> R
    ) throws -> R {
        guard FileManager.default.fileExists(atPath: path) else {
            throw SwiftDataError(.storeIsNotSQLite, reason: "There is no store at \(path).")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            // The copy only: the store itself is never touched. A copy left behind is reported.
            do { try FileManager.default.removeItem(at: folder) } catch {
                Diagnostics.report("Importing \(path) left its scratch copy at \(folder.path): \(error)")
            }
        }
        let copy = folder.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy.path + suffix)
        }
        let external = URL(fileURLWithPath: path).deletingLastPathComponent()
            .appendingPathComponent(".\(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)_SUPPORT")
        if FileManager.default.fileExists(atPath: external.path) {
            try FileManager.default.copyItem(at: external, to: folder.appendingPathComponent(external.lastPathComponent))
        }
        // Opening says what is wrong: not SQLite, not Apple's (no Core Data tables), damaged.
        guard try StoreFileInspection.header(ofFileAt: copy.path) == StoreFileInspection.sqliteHeader else {
            throw SwiftDataError(.storeIsNotSQLite, reason: "\(path) is not an SQLite database, so not a store Apple's Core Data or SwiftData wrote. Nothing was imported.")
        }
        let source = try AppleStoreFile(path: copy.path, conversions: conversions)
        guard !source.isMirroredToCloudKit else {
            throw SwiftDataError(.cloudKitMirroredStore, reason: "\(path) is mirrored to CloudKit by Core Data: the device's rows may not be all of the user's data, and CloudKit's record metadata would be lost. Nothing was imported; let the app finish syncing and export the data, or import a store that is not mirrored.")
        }
        return try body(source)
    }

    /// Imports the rows of `source` (the copy of the store at `path`) into `target`.
    private static func importRows(of source: AppleStoreFile, storedAt path: String, into target: any StoreTooling, ignoring: Set<String>) throws -> Outcome? {
        let author = author(storeUUID: source.storeUUID)
        var importedBefore = false
        try target.forEachHistoryTransaction(after: 0, author: author, newestFirst: false) { _ in
            importedBefore = true
            return false
        }
        if importedBefore { return nil }
        let transfer: StoreTransfer
        do {
            // What the store holds and this version cannot read would be lost without a word.
            let unread = source.layout.unreadable.filter { entry in
                !ignoring.contains(entry.property) && !ignoring.contains(String(entry.property.prefix { $0 != "." }))
            }
            guard unread.isEmpty else {
                throw StoreTransfer.Mismatch(problems: unread.map { "\($0.property) cannot be read: \($0.reason)" })
            }
            transfer = try StoreTransfer(from: source.schema, to: target.schema, ignoring: ignoring)
        } catch {
            throw SwiftDataError(.schemaMismatch, reason: "\(path) does not fit the app's models: \(error). Nothing was imported; leave out what the app no longer has on purpose with `ignoring` (model or Model.property names).")
        }
        // The map from Core Data's URIs to the new keys is kept beside the rows, in the same
        // transaction, for an app that stored such URIs.
        let outcome = try transfer.run(from: source, into: target, author: author) { keys in
            try target.writeCompanionRecords(keys.flatMap { entity, keys in
                keys.map { old, new in
                    CompanionRecord(domain: identifierDomain, key: uri(storeUUID: source.storeUUID, entity: entity, key: old), text: "\(entity)/\(new)")
                }
            })
        }
        let storeIdentifier = try target.inspection().identifier
        var identifiers: [String: PersistentIdentifier] = [:]
        for (entity, keys) in outcome.keys {
            for (old, new) in keys {
                identifiers[uri(storeUUID: source.storeUUID, entity: entity, key: old)] =
                    PersistentIdentifier(storeIdentifier: storeIdentifier, entityName: entity, key: .permanent(new))
            }
        }
        return Outcome(rows: outcome.rows, identifiers: identifiers)
    }

    /// The URI Core Data's `objectID.uriRepresentation()` gives a row.
    static func uri(storeUUID: String?, entity: String, key: Int64) -> String {
        "x-coredata://\(storeUUID ?? "")/\(entity)/p\(key)"
    }

    /// The identifiers the rows an import brought have in `store`, by the Core Data URIs given.
    static func identifiers(of uris: [String], in store: any StoreTooling, storeIdentifier: String) throws -> [String: PersistentIdentifier] {
        var identifiers: [String: PersistentIdentifier] = [:]
        for (uri, value) in try store.companionRecords(domain: identifierDomain, keys: uris) {
            let text = String(decoding: value, as: UTF8.self)
            guard let slash = text.lastIndex(of: "/"), let key = Int64(text[text.index(after: slash)...]) else {
                throw SwiftDataError(.storeIsCorrupt, reason: "The record of the imported object \(uri) is damaged (\(text.prefix(80))).")
            }
            identifiers[uri] = PersistentIdentifier(storeIdentifier: storeIdentifier, entityName: String(text[..<slash]), key: .permanent(key))
        }
        return identifiers
    }
}

extension ModelContainer {
    /// What ``ModelContainer/importAppleStore(at:ignoring:converting:)`` brought along.
    public struct AppleStoreImportResult: Sendable {
        /// The number of rows imported per model; empty when the store was imported before.
        public var rows: [String: Int]
        /// The identifier each imported row has now, by the URI Core Data gave it
        /// (`x-coredata://STORE-UUID/Entity/pKEY`, as `objectID.uriRepresentation()` printed it),
        /// for an app that kept such URIs.
        public var identifiers: [URL: PersistentIdentifier]
        /// Whether the store had been imported before, so that nothing was imported now.
        public var wasImportedBefore: Bool
    }

    /// Imports the rows of a store that Apple's SwiftData or Core Data wrote into this container's
    /// store (an SQLite file, or a PostgreSQL namespace), in one transaction: call it at launch to bring along what users already have. (An
    /// OpenSwiftData addition.)
    ///
    /// The Apple store's model is read from the store itself; its entities, attributes and
    /// relationships match the container's models by name (or a property's `originalName`), and
    /// every row comes with its relationships. The Apple store is never modified. Running it again
    /// for the same store imports nothing (``AppleStoreImportResult/wasImportedBefore``).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, Activity.self)
    /// let imported = try container.importAppleStore(at: oldStoreURL)   // imported.rows: ["Trip": 12, "Activity": 40]
    /// ```
    ///
    /// - Parameters:
    ///   - url: The Apple store file (its `-wal` and `-shm`, and the folder of external data
    ///     beside it, are read too).
    ///   - ignoring: Names of models (`Trip`) and properties (`Trip.notes`) of the Apple store to
    ///     leave out on purpose.
    ///   - conversions: How to convert the values of transformable attributes, by `Model.property`
    ///     of the Apple store (see ``AppleValueConversion``); others are imported as the bytes
    ///     Core Data's transformer wrote.
    /// - Returns: The rows imported per model, and the new identifier of each by its Core Data URI
    ///   (kept in the store too: ``persistentIdentifiers(forImportedAppleObjects:)``).
    /// - Throws: ``SwiftDataError/schemaMismatch`` naming every model, property and relationship
    ///   of the Apple store that has no home among the container's models;
    ///   ``SwiftDataError/storeIsCorrupt`` or ``SwiftDataError/storeIsNotSQLite`` for a file that
    ///   cannot be read as such a store (a truncated or damaged file, a missing model);
    ///   ``SwiftDataError/storeFromNewerVersion`` for a store a newer Core Data wrote in a form this
    ///   version does not read; ``SwiftDataError/cloudKitMirroredStore`` for a store Core Data
    ///   mirrors to CloudKit; ``SwiftDataError/uniquenessConflict`` when its rows break a
    ///   uniqueness constraint of the container's store. Nothing is imported then.
    ///   ``SwiftDataError/storeFailure`` for a container of several stores, or of a store kept in
    ///   memory or a custom `DataStore`.
    @discardableResult
    public func importAppleStore(
        at url: URL, ignoring: Set<String> = [], converting conversions: [String: AppleValueConversion] = [:]
    ) throws -> AppleStoreImportResult {
        let target = try appleImportTarget().openTooling()
        guard let outcome = try AppleStoreImport.run(appleStoreAt: url.path, into: target, ignoring: ignoring, conversions: conversions) else {
            return AppleStoreImportResult(rows: [:], identifiers: [:], wasImportedBefore: true)
        }
        return AppleStoreImportResult(
            rows: Dictionary(outcome.rows.map { ($0.model, $0.rows) }, uniquingKeysWith: +),
            identifiers: Dictionary(outcome.identifiers.compactMap { uri, identifier in URL(string: uri).map { ($0, identifier) } }, uniquingKeysWith: { first, _ in first }),
            wasImportedBefore: false)
    }

    /// The identifiers that models brought by ``importAppleStore(at:ignoring:converting:)`` have
    /// in this container's store, by the URIs Core Data gave them (`x-coredata://STORE-UUID/Entity/pKEY`,
    /// as `objectID.uriRepresentation()` printed them): for an app that kept such URIs in its own
    /// data, user defaults or notifications. (An OpenSwiftData addition.)
    ///
    /// The map is kept in the store, written in the import's transaction, so it can be read at
    /// any later launch. A URI that no import brought is absent from the result.
    ///
    /// ```swift
    /// let saved = URL(string: UserDefaults.standard.string(forKey: "lastTrip")!)!
    /// if let id = try container.persistentIdentifiers(forImportedAppleObjects: [saved])[saved] {
    ///     let trip = context.model(for: id) as? Trip
    /// }
    /// ```
    ///
    /// - Throws: ``SwiftDataError/storeFailure`` for a container of several stores, or of a store
    ///   kept in memory or a custom `DataStore`; an error of the store when it cannot be read.
    public func persistentIdentifiers(forImportedAppleObjects uris: [URL]) throws -> [URL: PersistentIdentifier] {
        let store = try appleImportTarget()
        let found = try AppleStoreImport.identifiers(of: uris.map(\.absoluteString), in: try store.openTooling(), storeIdentifier: store.identifier)
        var identifiers: [URL: PersistentIdentifier] = [:]
        for uri in uris { identifiers[uri] = found[uri.absoluteString] }
        return identifiers
    }

    /// The store an Apple store is imported into: the container's only one, when it can be opened
    /// as the tools open it.
    private func appleImportTarget() throws -> any ToolingOpeningStore {
        guard stores.count == 1, let store = stores[0].store as? any ToolingOpeningStore else {
            throw SwiftDataError(.storeFailure, reason: "Importing an Apple store needs a container of one SQLite or PostgreSQL store.")
        }
        return store
    }
}
