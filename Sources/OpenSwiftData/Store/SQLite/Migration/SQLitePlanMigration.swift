import Foundation

/// Runs the stages of a ``SchemaMigrationPlan`` on a store file, from the version recorded in the
/// store to the last, all or nothing.
///
/// Before the first stage the store is checkpointed and copied beside itself, and a marker says a
/// migration is in progress (``MigrationJournal``). If any stage fails, including an error thrown
/// by `willMigrate` or `didMigrate`, the copy replaces the store and the error names the stage; if
/// the process dies, the next open of the store puts the copy back and the migration runs again
/// from the start. A store already at the current version runs no stage.
enum SQLitePlanMigration {
    static func run(_ plan: any SchemaMigrationPlan.Type, storeAt url: URL, target: Schema) throws {
        let path = url.path
        func pendingStages() throws -> MigrationPlanRunner.PendingStages? {
            try MigrationJournal.recover(storeAt: path)
            guard let inspection = try StoreFileInspection.inspect(path: path), let recorded = inspection.schema else { return nil }
            return MigrationPlanRunner.stages(of: plan, from: recorded, to: target)
        }
        guard try pendingStages() != nil else { return }
        // One migration at a time, in this process and others: a second container opening the
        // store meanwhile waits, then finds it migrated (or still needing the stages, and runs them).
        try MigrationJournal.lockingMigrations(of: path) {
            guard let pending = try pendingStages() else { return }
            let journal = try MigrationJournal(beginningMigrationOf: path)
            try MigrationPlanRunner.run(pending, configuration: ModelConfiguration(url: url), place: "the store at \(path)") {
                try journal.rollBack()
                return "The store was restored to its state before the migration."
            }
            try journal.finish()
        }
    }
}
