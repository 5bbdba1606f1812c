import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// Unique and regular indexes hold text by its NFC form, as queries compare it: text is unique as
/// Swift's `==` tells strings apart, and namespaces made before are rebuilt so when opened for saving.
@Suite struct PostgresTextIndexTests {
    private static func definitions(_ namespace: String) throws -> [String] {
        try PostgresServer.sql("SELECT indexdef FROM pg_indexes WHERE schemaname = '\(namespace)' AND indexname LIKE 'osd_unique_%' ORDER BY indexname")
    }

    private static func textIndexesKey(_ namespace: String) throws -> [String] {
        try PostgresServer.sql("SELECT value FROM \(namespace).osd_metadata WHERE key = 'textIndexes'")
    }

    /// A namespace holding `ticket`, as versions before text was indexed by its NFC form left it.
    private static func namespaceFromBefore(_ prefix: String, holding ticket: Ticket) throws -> PostgresStoreConfiguration {
        let configuration = try PostgresServer.freshConfiguration(prefix)
        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        context.insert(ticket)
        try context.save()
        try makeIndexesByteWise(configuration.name)
        return configuration
    }

    /// Makes the namespace's indexes byte-wise, as versions before text was indexed by its NFC
    /// form left them.
    private static func makeIndexesByteWise(_ namespace: String) throws {
        try PostgresServer.sql("DROP INDEX \(namespace).\"osd_unique_Ticket_0\"")
        try PostgresServer.sql("CREATE UNIQUE INDEX \"osd_unique_Ticket_0\" ON \(namespace).\"Ticket\" (code)")
        try PostgresServer.sql("DROP INDEX \(namespace).\"osd_index_Ticket_0\"")
        try PostgresServer.sql("CREATE INDEX \"osd_index_Ticket_0\" ON \(namespace).\"Ticket\" (title)")
        try PostgresServer.sql("DELETE FROM \(namespace).osd_metadata WHERE key = 'textIndexes'")
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func uniqueTextIsIndexedByItsNFCForm() throws {
        let configuration = try PostgresServer.freshConfiguration("nfc")
        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        context.insert(Ticket(code: "caf\u{E9}", title: "first"))
        try context.save()
        #expect(try Self.definitions(configuration.name).first?.lowercased().contains("normalize(code, nfc)") == true)
        #expect(try Self.textIndexesKey(configuration.name) == ["nfc"])
        // Another process's insert of the decomposed form is refused by the index itself.
        #expect(throws: (any Error).self) {
            try PostgresServer.sql("INSERT INTO \(configuration.name).\"Ticket\" (code, title, count, score) VALUES ('cafe\u{301}', 'raw', 0, 0)")
        }
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aNamespaceFromBeforeIsRebuiltWhenOpenedForSaving() throws {
        let configuration = try Self.namespaceFromBefore("nfcold", holding: Ticket(code: "caf\u{E9}", title: "first"))
        let readOnly = PostgresStoreConfiguration(name: configuration.name, url: configuration.url, allowsSave: false)
        _ = try ModelContext(try ModelContainer(for: Ticket.self, configurations: readOnly)).fetch(FetchDescriptor<Ticket>())
        #expect(try Self.definitions(configuration.name).first?.lowercased().contains("normalize") == false, "a read-only configuration changes nothing")

        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        #expect(try Self.definitions(configuration.name).first?.lowercased().contains("normalize(code, nfc)") == true)
        #expect(try Self.textIndexesKey(configuration.name) == ["nfc"])
        context.insert(Ticket(code: "cafe\u{301}", title: "second"))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Ticket>()).map(\.title) == ["second"], "the insert updated the row Swift calls equal")
    }

    /// Values the old byte-wise index let in, which Swift calls equal, keep the old index (the
    /// store still opens and saves) until they are made distinct.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func equalValuesStoredBeforeKeepTheOldIndexUntilMadeDistinct() throws {
        let configuration = try Self.namespaceFromBefore("nfcdup", holding: Ticket(code: "x", title: "x"))
        try PostgresServer.sql("INSERT INTO \(configuration.name).\"Ticket\" (code, title, count, score) VALUES ('caf\u{E9}', 'composed', 0, 0), ('cafe\u{301}', 'decomposed', 0, 0)")

        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        #expect(try Self.definitions(configuration.name).first?.lowercased().contains("normalize") == false)
        #expect(try Self.textIndexesKey(configuration.name).isEmpty)
        context.insert(Ticket(code: "y", title: "y"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Ticket>()) == 4)

        let before = try PostgresServer.sql("SELECT c.oid::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(configuration.name)' AND c.relname = 'osd_index_Ticket_0'")
        _ = try ModelContainer(for: Ticket.self, configurations: configuration)
        let after = try PostgresServer.sql("SELECT c.oid::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(configuration.name)' AND c.relname = 'osd_index_Ticket_0'")
        #expect(!before.isEmpty && before == after, "an index already rebuilt is not built again at the next opening")

        let decomposed = "cafe\u{301}"
        try context.delete(model: Ticket.self, where: #Predicate { $0.code == decomposed && $0.title == "decomposed" })
        try context.save()
        _ = try ModelContainer(for: Ticket.self, configurations: configuration)
        #expect(try Self.definitions(configuration.name).first?.lowercased().contains("normalize(code, nfc)") == true)
        #expect(try Self.textIndexesKey(configuration.name) == ["nfc"])
    }
}
