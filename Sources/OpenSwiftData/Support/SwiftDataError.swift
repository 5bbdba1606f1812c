/// An error that OpenSwiftData throws, in the shape of SwiftData's `SwiftDataError`.
///
/// Compare an error with one of the static members to learn what went wrong; the error's
/// ``description`` names the model, property, and (for store errors) the SQLite code and statement.
///
/// ```swift
/// do { try context.save() }
/// catch let error as SwiftDataError where error == .modelValidationFailure { … }
/// ```
public struct SwiftDataError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        case loadIssueModelContainer, modelValidationFailure, missingModelContext, unsupportedPredicate
        case unsupportedSortDescriptor, includePendingChangesWithBatchSize, duplicateConfiguration
        case configurationSchemaNotFoundInContainerSchema, unknownSchema, backwardMigration
        case storeIsNotSQLite, storeIsCorrupt, storeIsReadOnly, storeIsBusy, storeFromNewerVersion
        case schemaMismatch, saveNotAllowed, storeFailure, modelNotFound, uniquenessConflict
        case migrationFailed, historyTokenExpired, arithmeticOverflow, destructiveMigration, cloudKitMirroredStore
        case invalidStoreURL, storeUnavailable, storeAccessDenied
        case sortingPendingChangesWithIdentifiers, unsupportedKeyPath, invalidTransactionFetchRequest
        case configurationFileNameContainsInvalidCharacters, configurationFileNameTooLong, unknownDataStoreSchema
    }

    package let kind: Kind
    /// What went wrong, with the model, property, store path or SQL involved.
    public let reason: String?

    package init(_ kind: Kind, reason: String? = nil) {
        self.kind = kind
        self.reason = reason
    }

    /// The error's kind and details.
    public var description: String {
        reason.map { "SwiftDataError.\(kind.rawValue): \($0)" } ?? "SwiftDataError.\(kind.rawValue)"
    }

    /// Errors are equal when they are of the same kind, whatever their details.
    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.kind == rhs.kind }

    /// Hashes the error's kind.
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// The container could not load its store.
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer)
    /// A model's values are invalid for its schema (for example, a value out of range).
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure)
    /// The operation needs a model context that the model does not have.
    public static let missingModelContext = SwiftDataError(.missingModelContext)
    /// The predicate cannot be evaluated.
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate)
    /// The sort descriptor cannot be applied.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor)
    /// A batched fetch cannot include pending changes.
    public static let includePendingChangesWithBatchSize = SwiftDataError(.includePendingChangesWithBatchSize)
    /// Identifiers cannot be fetched in a sorted order that includes pending changes, as in
    /// SwiftData. OpenSwiftData sorts pending changes into identifier fetches, so it does not
    /// throw this error.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError(.sortingPendingChangesWithIdentifiers)
    /// A key path in a fetch does not name a persisted property of the model.
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath)
    /// A history descriptor cannot be answered.
    public static let invalidTransactionFetchRequest = SwiftDataError(.invalidTransactionFetchRequest)
    /// A configuration's name cannot be a file name: it contains a `/` or a NUL character, or
    /// is `.` or `..`.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError(.configurationFileNameContainsInvalidCharacters)
    /// A configuration's name is too long to be a file name.
    public static let configurationFileNameTooLong = SwiftDataError(.configurationFileNameTooLong)
    /// The store's schema is neither the container's nor one of its migration plan's versions.
    public static let unknownDataStoreSchema = SwiftDataError(.unknownDataStoreSchema)
    /// Two configurations of a container have the same name.
    public static let duplicateConfiguration = SwiftDataError(.duplicateConfiguration)
    /// A configuration names a model its container's schema does not have.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError(.configurationSchemaNotFoundInContainerSchema)
    /// The store was written by a schema the container does not know.
    public static let unknownSchema = SwiftDataError(.unknownSchema)
    /// A migration would go from a newer schema version to an older one.
    public static let backwardMigration = SwiftDataError(.backwardMigration)

    /// The store file exists but is not an SQLite database. OpenSwiftData does not modify it.
    public static let storeIsNotSQLite = SwiftDataError(.storeIsNotSQLite)
    /// The store file is damaged. OpenSwiftData does not modify it.
    public static let storeIsCorrupt = SwiftDataError(.storeIsCorrupt)
    /// The store file or its folder cannot be written.
    public static let storeIsReadOnly = SwiftDataError(.storeIsReadOnly)
    /// Another process held the store's write lock for longer than the busy timeout.
    public static let storeIsBusy = SwiftDataError(.storeIsBusy)
    /// The store was written by a newer version of OpenSwiftData. It is left untouched.
    public static let storeFromNewerVersion = SwiftDataError(.storeFromNewerVersion)
    /// The store's recorded schema differs from the container's models by a change that a
    /// lightweight migration cannot make (the reason names the model, the property and what to do:
    /// usually a custom ``MigrationStage``). The store is left untouched.
    public static let schemaMismatch = SwiftDataError(.schemaMismatch)
    /// The container's configuration does not allow saving.
    public static let saveNotAllowed = SwiftDataError(.saveNotAllowed)
    /// The store reported an error; the reason carries SQLite's code, message and statement.
    public static let storeFailure = SwiftDataError(.storeFailure)
    /// No model exists for the identifier.
    public static let modelNotFound = SwiftDataError(.modelNotFound)
    /// Saving would make two rows share a unique key.
    public static let uniquenessConflict = SwiftDataError(.uniquenessConflict)
    /// A stage of a migration plan failed; the store was restored to its state before the
    /// migration. The reason names the stage and the cause.
    public static let migrationFailed = SwiftDataError(.migrationFailed)
    /// Opening the store would run a lightweight migration that deletes stored data (a model,
    /// property or relationship the models no longer declare still holds values), and its
    /// configuration refuses that (`allowsDestructiveMigration`, off by default for PostgreSQL).
    /// Nothing was changed; the reason names each place and how many rows hold data there.
    public static let destructiveMigration = SwiftDataError(.destructiveMigration)
    /// A store Apple's Core Data mirrors to CloudKit (`NSPersistentCloudKitContainer`, or
    /// SwiftData with a CloudKit database) cannot be imported: its rows on the device may not be
    /// all of the user's data, and CloudKit's record metadata would be lost. Nothing was imported.
    public static let cloudKitMirroredStore = SwiftDataError(.cloudKitMirroredStore)
    /// The history token is older than history that was deleted: the changes since it are no
    /// longer all recorded. Fetch from the start of the remaining history instead.
    public static let historyTokenExpired = SwiftDataError(.historyTokenExpired)
    /// The sum of integer values does not fit in their type
    /// (`ModelContext.sum(of:in:)`, an addition of OpenSwiftData).
    public static let arithmeticOverflow = SwiftDataError(.arithmeticOverflow)

    /// The location of a store that runs on a database server cannot be used: its URL is not a
    /// database URL, or it lacks the host or database. Nothing was contacted.
    public static let invalidStoreURL = SwiftDataError(.invalidStoreURL)
    /// The store cannot be reached: its database server refused the connection, it timed out or
    /// was lost, or its file was moved or deleted while the container had it open. A save in
    /// flight when that happened wrote nothing.
    public static let storeUnavailable = SwiftDataError(.storeUnavailable)
    /// The database server refused the store's credentials, or the user may not use the database.
    public static let storeAccessDenied = SwiftDataError(.storeAccessDenied)

    package static func modelValidationFailure(model: String, property: String, reason: String) -> SwiftDataError {
        SwiftDataError(.modelValidationFailure, reason: "\(model).\(property): \(reason)")
    }

    /// The same error with more context in front of its reason.
    package func adding(context: String) -> SwiftDataError {
        SwiftDataError(kind, reason: reason.map { "\(context): \($0)" } ?? context)
    }
}
