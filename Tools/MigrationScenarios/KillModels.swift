import Foundation
import OpenSwiftData

// The models of the kill tests: a store of rows written with V1, migrated to V2 (a rename through
// `originalName` and a new property that `didMigrate` fills) and on to V3 (another filled property).

/// Version 1: `key` unique, `value`, `label`.
public enum KillV1: VersionedSchema {
    public static let versionIdentifier = Schema.Version(1, 0, 0)
    public static var models: [any PersistentModel.Type] { [Row.self] }

    @Model public final class Row {
        @Attribute(.unique) public var key: Int
        public var value: Int
        public var label: String
        public init(key: Int, value: Int, label: String) {
            self.key = key
            self.value = value
            self.label = label
        }
    }
}

/// Version 2: `label` renamed to `title`, and `doubled`, which the migration fills with `value * 2`.
public enum KillV2: VersionedSchema {
    public static let versionIdentifier = Schema.Version(2, 0, 0)
    public static var models: [any PersistentModel.Type] { [Row.self] }

    @Model public final class Row {
        @Attribute(.unique) public var key: Int
        public var value: Int
        @Attribute(originalName: "label") public var title: String
        public var doubled: Int = 0
        public init(key: Int, value: Int, title: String) {
            self.key = key
            self.value = value
            self.title = title
        }
    }
}

/// Version 3: `sum`, which the second stage fills with `value + doubled`.
public enum KillV3: VersionedSchema {
    public static let versionIdentifier = Schema.Version(3, 0, 0)
    public static var models: [any PersistentModel.Type] { [Row.self] }

    @Model public final class Row {
        @Attribute(.unique) public var key: Int
        public var value: Int
        public var title: String
        public var doubled: Int = 0
        public var sum: Int = 0
        public init(key: Int, value: Int, title: String) {
            self.key = key
            self.value = value
            self.title = title
        }
    }
}

/// Fills `doubled` in `didMigrate`, saving in batches as a careful app does.
private func fillDoubled(_ context: ModelContext) throws {
    for row in try context.fetch(FetchDescriptor<KillV2.Row>()) { row.doubled = row.value * 2 }
    try context.save()
}

/// V1 → V2 with a custom stage whose `didMigrate` fills `doubled`.
public enum KillPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [KillV1.self, KillV2.self] }
    public static var stages: [MigrationStage] {
        [.custom(fromVersion: KillV1.self, toVersion: KillV2.self, willMigrate: nil, didMigrate: fillDoubled)]
    }
}

/// V1 → V2 whose `willMigrate` also appends "!" to every label: run twice on its own changes, it
/// would leave "!!".
public enum KillWillMigratePlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [KillV1.self, KillV2.self] }
    public static var stages: [MigrationStage] {
        [.custom(fromVersion: KillV1.self, toVersion: KillV2.self,
                 willMigrate: { context in
                     for row in try context.fetch(FetchDescriptor<KillV1.Row>()) { row.label += "!" }
                     try context.save()
                 },
                 didMigrate: fillDoubled)]
    }
}

/// V1 → V2 → V3: two custom stages in a row.
public enum KillTwoStagePlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [KillV1.self, KillV2.self, KillV3.self] }
    public static var stages: [MigrationStage] {
        [.custom(fromVersion: KillV1.self, toVersion: KillV2.self, willMigrate: nil, didMigrate: fillDoubled),
         .custom(fromVersion: KillV2.self, toVersion: KillV3.self, willMigrate: nil, didMigrate: { context in
             for row in try context.fetch(FetchDescriptor<KillV3.Row>()) { row.sum = row.value + row.doubled }
             try context.save()
         })]
    }
}

/// Why ``KillFailingPlan`` fails.
public struct KillPlanFailure: Error {}

/// V1 → V2 whose `didMigrate` fills `doubled` and saves, then fails: the store is put back as it
/// was (its backup written into it), every time.
public enum KillFailingPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [KillV1.self, KillV2.self] }
    public static var stages: [MigrationStage] {
        [.custom(fromVersion: KillV1.self, toVersion: KillV2.self, willMigrate: nil, didMigrate: { context in
            try fillDoubled(context)
            throw KillPlanFailure()
        })]
    }
}

/// V3 → V2, back through an explicit stage whose `willMigrate` keeps each row's `sum` in `doubled`
/// and appends "<" to every title before the schema change drops `sum`: run twice on its own
/// changes, it would leave "<<".
public enum KillDowngradePlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [KillV2.self, KillV3.self] }
    public static var stages: [MigrationStage] {
        [.custom(fromVersion: KillV3.self, toVersion: KillV2.self,
                 willMigrate: { context in
                     for row in try context.fetch(FetchDescriptor<KillV3.Row>()) {
                         row.doubled = row.sum
                         row.title += "<"
                     }
                     try context.save()
                 },
                 didMigrate: nil)]
    }
}
