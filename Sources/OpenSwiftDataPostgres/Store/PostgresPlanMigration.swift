import Foundation
import OpenSwiftData

/// Runs the stages of a ``SchemaMigrationPlan`` on a PostgreSQL namespace, from the version it
/// records to the last, in one transaction.
///
/// PostgreSQL changes tables inside transactions, so every stage (its lightweight changes, and the
/// saves of `willMigrate` and `didMigrate`) runs in a transaction of one connection, each store
/// opening and each save in a savepoint of its own. The namespace's opening lock is held
/// throughout, so another process opening the store waits and then finds it current. If a stage
/// fails, or the process dies, or the connection is lost, the server discards the transaction:
/// the namespace is as it was, and the next open runs the migration again from the start.
enum PostgresPlanMigration {
    static func run(
        _ plan: any SchemaMigrationPlan.Type, location: PostgresLocation, configuration: PostgresStoreConfiguration, target: Schema
    ) throws {
        let session = try PostgresSession(location)
        defer { session.close() }
        try session.begin()
        do {
            try session.execute("SELECT pg_advisory_xact_lock(hashtext(\(PostgresSQL.literal("osd-open:" + location.namespace))))")
            // A new namespace is created by the container's own open; another app's is refused there.
            guard let metadata = try PostgresBackend.recordedMetadata(session, location: location),
                  let pending = MigrationPlanRunner.stages(of: plan, from: try PostgresBackend.recordedSchema(metadata, location: location), to: target)
            else {
                try session.commit()
                return
            }
            var staged = configuration
            staged.migrationSession = session
            try MigrationPlanRunner.run(pending, configuration: staged, place: "PostgreSQL \(location.displayName)") {
                // The catch below rolls the whole transaction back.
                "Nothing was changed."
            }
            try session.commit()
        } catch {
            session.rollback()
            throw error
        }
    }
}
