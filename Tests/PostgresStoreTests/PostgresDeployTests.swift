import Foundation
import Testing
import OpenSwiftData
import OpenSwiftDataPostgres

/// Version 1 of an orders server.
enum OrdersV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Order.self] }

    @Model final class Order {
        var number: Int
        var total: Double
        var legacyTag: String?
        init(number: Int, total: Double, legacyTag: String? = nil) { self.number = number; self.total = total; self.legacyTag = legacyTag }
    }
}

/// Version 2, additive: a new optional property.
enum OrdersV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Order.self] }

    @Model final class Order {
        var number: Int
        var total: Double
        var legacyTag: String?
        var note: String?
        init(number: Int, total: Double, note: String? = nil) { self.number = number; self.total = total; self.note = note }
    }
}

/// Version 3: `legacyTag` removed, without a stage that says so.
enum OrdersV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Order.self] }

    @Model final class Order {
        var number: Int
        var total: Double
        var note: String?
        init(number: Int, total: Double) { self.number = number; self.total = total }
    }
}

/// The rolling deploy docs/Postgres.md describes ("Deploying"): old and new instances on one
/// namespace through an additive change, an old instance that restarts, a removal refused, and
/// history trimmed by age.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresDeployTests {
    @Test func oldInstancesKeepWorkingThroughAnAdditiveChangeAndARestartChangesNothing() throws {
        let configuration = try PostgresServer.freshConfiguration("deploy")
        let old = ModelContext(try ModelContainer(for: Schema(versionedSchema: OrdersV1.self), configurations: [configuration]))
        old.insert(OrdersV1.Order(number: 1, total: 10, legacyTag: "a"))
        try old.save()

        // The new version opens, migrating the namespace; the old instance still runs.
        let new = ModelContext(try ModelContainer(for: Schema(versionedSchema: OrdersV2.self), configurations: [configuration]))
        new.insert(OrdersV2.Order(number: 2, total: 20, note: "gift"))
        try new.save()
        old.insert(OrdersV1.Order(number: 3, total: 30))
        try old.save()
        #expect(try old.fetch(FetchDescriptor<OrdersV1.Order>(sortBy: [SortDescriptor(\.number)])).map(\.number) == [1, 2, 3])
        let seenByNew = try new.fetch(FetchDescriptor<OrdersV2.Order>(sortBy: [SortDescriptor(\.number)]))
        #expect(seenByNew.map(\.note) == [nil, "gift", nil])

        // An old instance that restarts is refused, and the namespace stays at version 2.
        #expect(throws: SwiftDataError.backwardMigration) {
            _ = try ModelContainer(for: Schema(versionedSchema: OrdersV1.self), configurations: [configuration])
        }
        #expect(try ModelContext(try ModelContainer(for: Schema(versionedSchema: OrdersV2.self), configurations: [configuration]))
            .fetchCount(FetchDescriptor<OrdersV2.Order>()) == 3)

        // Version 3 drops `legacyTag`, which order 1 still holds: refused, naming it.
        let error = try #require(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: OrdersV3.self), configurations: [configuration])
        }
        #expect(error == .destructiveMigration)
        #expect(error.reason?.contains("Order.legacyTag (1 row)") == true)
        let kept = try ModelContext(try ModelContainer(for: Schema(versionedSchema: OrdersV2.self), configurations: [configuration]))
            .fetch(FetchDescriptor<OrdersV2.Order>(predicate: #Predicate { $0.number == 1 }))
        #expect(kept.first?.legacyTag == "a")
    }

    @Test func historyOlderThanACutoffIsDeletedAndTheRestKept() throws {
        let configuration = try PostgresServer.freshConfiguration("retention")
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: OrdersV2.self), configurations: [configuration]))
        context.insert(OrdersV2.Order(number: 1, total: 1))
        try context.save()
        let cutoff = Date.now
        Thread.sleep(forTimeInterval: 0.01)
        context.insert(OrdersV2.Order(number: 2, total: 2))
        try context.save()
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.timestamp < cutoff }))
        let left = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(left.count == 1)
        #expect(left.allSatisfy { $0.timestamp >= cutoff })
    }
}
