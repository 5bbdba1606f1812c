import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// A save of one new model whose unique values a stored row has updates that row, whatever unique
/// index the namespace holds: the index the store creates (written by `INSERT … ON CONFLICT`), an
/// index from before text was indexed by its NFC form, or none (both looked up first). An index
/// another program removes while the store is open fails the save with the reason, and saves
/// nothing.
@Suite struct PostgresUpsertIndexTests {
    /// What another program did to the namespace's unique index before the store opened.
    enum IndexState: String, CaseIterable, CustomTestStringConvertible {
        case asCreated, byteWise, removed
        var testDescription: String { rawValue }
    }

    private static func prepare(_ state: IndexState, namespace: String) throws {
        switch state {
        case .asCreated:
            break
        case .byteWise:
            try PostgresServer.sql("DROP INDEX \(namespace).\"osd_unique_Ticket_0\"")
            try PostgresServer.sql("CREATE UNIQUE INDEX \"osd_unique_Ticket_0\" ON \(namespace).\"Ticket\" (code)")
        case .removed:
            try PostgresServer.sql("DROP INDEX \(namespace).\"osd_unique_Ticket_0\"")
        }
    }

    private static func rows(_ namespace: String) throws -> [String] {
        try PostgresServer.sql("SELECT code || ':' || title FROM \(namespace).\"Ticket\" ORDER BY _pk")
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage), arguments: IndexState.allCases)
    func aNewModelWithStoredUniqueValuesUpdatesTheirRow(_ state: IndexState) throws {
        let configuration = try PostgresServer.freshConfiguration("upsertindex")
        let first = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        first.insert(Ticket(code: "caf\u{E9}", title: "first", count: 1))
        try first.save()
        try Self.prepare(state, namespace: configuration.name)

        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        let stored = try #require(try context.fetch(FetchDescriptor<Ticket>()).first)
        let storedID = stored.persistentModelID
        // Decomposed: Swift calls it equal to the stored code.
        let again = Ticket(code: "cafe\u{301}", title: "second", count: 2)
        context.insert(again)
        try context.save()
        #expect(again.persistentModelID == storedID, "the new model took the stored row's identity")
        context.insert(Ticket(code: "other", title: "third"))
        try context.save()

        #expect(try Self.rows(configuration.name) == ["cafe\u{301}:second", "other:third"])
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 3)
        let kinds = history.dropFirst().map { transaction in
            transaction.changes.map { change -> String in
                switch change {
                case .insert(let insert): "insert \(insert.changedPersistentIdentifier == storedID)"
                case .update(let update): "update \(update.changedPersistentIdentifier == storedID)"
                case .delete: "delete"
                @unknown default: "unknown"
                }
            }
        }
        #expect(kinds == [["update true"], ["insert false"]], "each save records what it did to which row")

        let reopened = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        let titles = try reopened.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title)])).map { "\($0.title) \($0.count)" }
        #expect(titles == ["second 2", "third 0"])
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func anIndexRemovedWhileTheStoreIsOpenFailsTheSaveAndSavesNothing() throws {
        let configuration = try PostgresServer.freshConfiguration("upsertgone")
        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        context.insert(Ticket(code: "a", title: "first"))
        try context.save()
        try Self.prepare(.removed, namespace: configuration.name)
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count

        context.insert(Ticket(code: "a", title: "second"))
        do {
            try context.save()
            Issue.record("the save succeeded without the index it writes through")
        } catch let error as SwiftDataError {
            #expect(error == .storeIsCorrupt)
            #expect(error.reason?.contains("lacks a unique index") == true, "\(error)")
        }
        #expect(try Self.rows(configuration.name) == ["a:first"])
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == history)

        // Opened again, the store looks the row up instead.
        let reopened = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        reopened.insert(Ticket(code: "a", title: "second"))
        try reopened.save()
        #expect(try Self.rows(configuration.name) == ["a:second"])
    }

    /// A role that may read and update the model's table but not insert into it opens the store
    /// for saving as before; an upsert of a stored row is refused, and nothing is written.
    @Test(.enabled(if: PostgresServer.passwordURL != nil, PostgresServer.passwordSkipMessage))
    func aRoleThatMayNotInsertOpensTheStoreAndIsRefusedOnTheWrite() throws {
        let url = try #require(PostgresServer.passwordURL)
        let configuration = try PostgresServer.freshConfiguration("upsertrole")
        let owner = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        owner.insert(Ticket(code: "a", title: "first"))
        try owner.save()
        let namespace = configuration.name
        try PostgresServer.sql("GRANT USAGE ON SCHEMA \(namespace) TO osd_password")
        try PostgresServer.sql("GRANT SELECT, UPDATE ON ALL TABLES IN SCHEMA \(namespace) TO osd_password")
        try PostgresServer.sql("GRANT INSERT ON ALL TABLES IN SCHEMA \(namespace) TO osd_password")
        try PostgresServer.sql("REVOKE INSERT ON \(namespace).\"Ticket\" FROM osd_password")
        try PostgresServer.sql("GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA \(namespace) TO osd_password")

        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: PostgresStoreConfiguration(name: namespace, url: url)))
        #expect(try context.fetch(FetchDescriptor<Ticket>()).map(\.title) == ["first"])
        context.insert(Ticket(code: "a", title: "second"))
        #expect(throws: SwiftDataError.storeAccessDenied) { try context.save() }
        #expect(try Self.rows(namespace) == ["a:first"])
    }
}
