import Foundation

/// Runs the stages of a ``SchemaMigrationPlan`` on a store file, from the version recorded in the
/// store to the last, all or nothing.
///
/// Before the first stage the store is checkpointed and copied beside itself, and a marker says a
/// migration is in progress (``MigrationJournal``). If any stage fails, including an error thrown
/// by `willMigrate` or `didMigrate`, the copy replaces the store and the error names the stage; if
/// the process dies, the next open of the store puts the copy back and the migration runs again
/// from the start. A store already at the current version runs no stage.
enum MigrationPlanRunner {
    static func run(_ plan: any SchemaMigrationPlan.Type, storeAt url: URL, target: Schema) throws {
        let path = url.path
        try MigrationJournal.recover(storeAt: path)
        guard let inspection = try StoreFileInspection.inspect(path: path), let recorded = inspection.schema,
              !recorded.differences(from: StoredSchema(target)).isEmpty
        else { return }
        let versions = plan.schemas
        guard let start = versions.firstIndex(where: { StoredSchema(Schema(versionedSchema: $0)).differences(from: recorded).isEmpty }) else {
            // Not a version of the plan: the container's own open tries a lightweight migration.
            return
        }
        // The chain of stages from the stored version on; nothing to do (and nothing written) when empty.
        var chain: [MigrationStage] = []
        var version: any VersionedSchema.Type = versions[start]
        while let stage = plan.stages.first(where: { ObjectIdentifier($0.fromVersion) == ObjectIdentifier(version) }),
              chain.count < plan.stages.count {
            chain.append(stage)
            version = stage.toVersion
        }
        guard !chain.isEmpty else { return }
        let journal = try MigrationJournal(beginningMigrationOf: path)
        var current: any VersionedSchema.Type = versions[start]
        do {
            for stage in chain {
                try run(stage, url: url)
                current = stage.toVersion
            }
        } catch {
            try journal.rollBack()
            throw SwiftDataError(.migrationFailed, reason: "Migrating the store at \(path) from version \(current.versionIdentifier) failed: \(error). The store was restored to its state before the migration.")
        }
        try journal.finish()
    }

    private static func run(_ stage: MigrationStage, url: URL) throws {
        let configuration = ModelConfiguration(url: url)
        switch stage {
        case .lightweight(_, let to):
            _ = try ModelContainer(for: Schema(versionedSchema: to), configurations: configuration)
        case .custom(let from, let to, let willMigrate, let didMigrate):
            if let willMigrate {
                let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: from), configurations: configuration))
                // A migration's saves are not history: nothing a sync should replay.
                context.recordsHistory = false
                try willMigrate(context)
                try context.save()
            }
            let container = try ModelContainer(for: Schema(versionedSchema: to), configurations: configuration)
            if let didMigrate {
                let context = ModelContext(container)
                context.recordsHistory = false
                try didMigrate(context)
                try context.save()
            }
        }
    }
}

extension MigrationStage {
    /// The version the stage starts from.
    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    /// The version the stage ends at.
    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }
}
