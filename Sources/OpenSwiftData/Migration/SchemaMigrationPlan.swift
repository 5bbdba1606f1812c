/// An interface for describing the evolution of a schema and how to migrate between specific versions.
///
/// ```swift
/// enum TripsMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
/// }
///
/// let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsMigrationPlan.self)
/// ```
///
/// The container runs the stages from the version recorded in the store to the last one, all or
/// nothing (see ``SwiftDataError/migrationFailed``), and never again on a store that is current.
public protocol SchemaMigrationPlan {
    /// The versions of the schema, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages that migrate a store from each version to the next, in order.
    static var stages: [MigrationStage] { get }
}

/// Describes a migration between two versions of the same schema.
public enum MigrationStage: @unchecked Sendable {
    // @unchecked Sendable: the payloads are metatypes, which have no state, and @Sendable closures.

    /// A migration that the store performs on its own: added and removed models and properties,
    /// renames declared with `originalName`.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A migration with your code before (on the old models) and after (on the new models) the
    /// store changes its schema.
    case custom(
        fromVersion: any VersionedSchema.Type,
        toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?,
        didMigrate: (@Sendable (ModelContext) throws -> Void)?
    )
}
