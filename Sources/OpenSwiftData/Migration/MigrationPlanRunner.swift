import Foundation

/// What every store's migration-plan run shares: which of a plan's stages a store recorded at a
/// version needs, whether a store may open at its recorded version, and running a chain of stages
/// with the store's own way of undoing a failed one (`SQLitePlanMigration` restores a copy of the
/// file; PostgreSQL rolls its transaction back).
package enum MigrationPlanRunner {
    /// The stages of a plan one store needs: the version it is at, the stages from there on, and
    /// the models it holds, by name (a store of a container with several configurations holds
    /// part of each version's models; the stages run on that part).
    package struct PendingStages {
        package let start: any VersionedSchema.Type
        package let chain: [MigrationStage]
        package let models: Set<String>

        /// The part of a version's schema this store holds (all of it when it holds every model).
        func schema(of version: any VersionedSchema.Type) -> Schema {
            MigrationPlanRunner.schema(of: version, holding: models)
        }
    }

    /// The version a store recorded as `recorded` is at, and the plan's stages from it on; `nil`
    /// when the store is current, is not at one of the plan's versions (the container's own open
    /// then tries a lightweight migration), or no stage starts from its version. `target` is the
    /// part of the container's schema the store holds; each version is compared on the models the
    /// store holds now or is to hold.
    ///
    /// The chain follows the plan's stages from the store's version and ends at the requested
    /// version when it is one of the plan's. A stage from a newer version to an older one is the
    /// app saying how to go back: it runs as any stage does (see ``downgradeTarget``).
    package static func stages(
        of plan: any SchemaMigrationPlan.Type, from recorded: StoredSchema, to target: Schema
    ) -> PendingStages? {
        let wanted = StoredSchema(target)
        guard !recorded.differences(from: wanted).isEmpty else { return nil }
        let models = Set(recorded.entities.map(\.name)).union(target.entities.map(\.name))
        let versions = plan.schemas
        func isAt(_ version: any VersionedSchema.Type, _ stored: StoredSchema) -> Bool {
            StoredSchema(schema(of: version, holding: models)).differences(from: stored).isEmpty
        }
        guard let start = versions.firstIndex(where: { isAt($0, recorded) }) else { return nil }
        let end = versions.first { isAt($0, wanted) }
        var chain: [MigrationStage] = []
        var version: any VersionedSchema.Type = versions[start]
        while end.map({ ObjectIdentifier($0) != ObjectIdentifier(version) }) ?? true,
              let stage = plan.stages.first(where: { ObjectIdentifier($0.fromVersion) == ObjectIdentifier(version) }),
              chain.count < plan.stages.count {
            chain.append(stage)
            version = stage.toVersion
        }
        return chain.isEmpty ? nil : PendingStages(start: versions[start], chain: chain, models: models)
    }

    /// A version's schema, or the part of it whose models are named in `models`.
    static func schema(of version: any VersionedSchema.Type, holding models: Set<String>) -> Schema {
        let full = Schema(versionedSchema: version)
        let held = full.entities.filter { models.contains($0.name) }
        guard held.count < full.entities.count else { return full }
        return Schema(held.map(\.modelType), version: version.versionIdentifier)
    }

    /// The version an explicit stage of a running plan migrates to: while it is bound, a store
    /// written by a newer version of the schema may be opened at this one, which a plain open
    /// refuses with ``SwiftDataError/backwardMigration``.
    @TaskLocal package static var downgradeTarget: Schema.Version?

    /// Whether a store written at `stored` may be opened at `current`: the same or a newer
    /// version, or an older one that a running stage of a plan migrates to.
    package static func mayOpen(storedAt stored: Schema.Version?, at current: Schema.Version?) -> Bool {
        guard let stored, let current, stored > current else { return true }
        return downgradeTarget == current
    }

    /// Runs the pending stages on the store a configuration opens. When a stage fails, `rollBack`
    /// undoes what the stages did and says how; the error thrown names the stage's version and
    /// `place`. Each stage's contexts hold the models of the store only.
    package static func run(
        _ pending: PendingStages, configuration: any DataStoreConfiguration, place: String,
        rollBack: () throws -> String
    ) throws {
        var current = pending.start
        do {
            for stage in pending.chain {
                let observer = StoreObserver.opening
                let started = observer == nil ? 0 : StoreObserver.now()
                let (from, to) = ("\(stage.fromVersion.versionIdentifier)", "\(stage.toVersion.versionIdentifier)")
                do {
                    try run(stage, of: pending, configuration: configuration)
                } catch {
                    observer?.ranStage(from: from, to: to, store: place, since: started, error: error)
                    throw error
                }
                observer?.ranStage(from: from, to: to, store: place, since: started)
                current = stage.toVersion
            }
        } catch {
            let outcome = try rollBack()
            throw SwiftDataError(.migrationFailed, reason: "Migrating \(place) from version \(current.versionIdentifier) failed: \(error). \(outcome)")
        }
    }

    private static func run(_ stage: MigrationStage, of pending: PendingStages, configuration: any DataStoreConfiguration) throws {
        /// The container of the stage's destination version, which may be older than the store's.
        func destination(_ version: any VersionedSchema.Type) throws -> ModelContainer {
            try $downgradeTarget.withValue(version.versionIdentifier) {
                try ModelContainer(for: pending.schema(of: version), configurations: [configuration])
            }
        }
        switch stage {
        case .lightweight(_, let to):
            _ = try destination(to)
        case .custom(let from, let to, let willMigrate, let didMigrate):
            if let willMigrate {
                let context = ModelContext(try ModelContainer(for: pending.schema(of: from), configurations: [configuration]))
                // A migration's saves are not history: nothing a sync should replay.
                context.saving.recordsHistory = false
                try willMigrate(context)
                try context.save()
            }
            let container = try destination(to)
            if let didMigrate {
                let context = ModelContext(container)
                context.saving.recordsHistory = false
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
