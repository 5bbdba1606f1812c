import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

@Model final class PgPrice {
    var amount: Decimal
    init(amount: Decimal) { self.amount = amount }
}

/// A namespace written when a `Decimal` NaN sorted after every number (its bytes were 0x03) is
/// rewritten once, when opened for saving, so that NaN sorts first, as Foundation orders it.
@Suite struct PostgresDecimalNaNTests {
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aNamespaceFromBeforeHasItsNaNsRewrittenWhenOpenedForSaving() throws {
        let configuration = try PostgresServer.freshConfiguration("decnan")
        do {
            let context = ModelContext(try ModelContainer(for: PgPrice.self, configurations: configuration))
            for amount in [Decimal.nan, 1, -1] { context.insert(PgPrice(amount: amount)) }
            try context.save()
        }
        let namespace = configuration.name
        try PostgresServer.sql("UPDATE \(namespace).\"PgPrice\" SET amount = '\\x03'::bytea WHERE amount = '\\x00'::bytea")
        try PostgresServer.sql("DELETE FROM \(namespace).osd_metadata WHERE key = 'decimalNaN'")
        let readOnly = PostgresStoreConfiguration(name: namespace, url: configuration.url, allowsSave: false)
        let reader = ModelContext(try ModelContainer(for: PgPrice.self, configurations: readOnly))
        #expect(try reader.fetch(FetchDescriptor<PgPrice>()).contains { $0.amount.isNaN }, "the old bytes still read as NaN")
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM \(namespace).\"PgPrice\" WHERE amount = '\\x03'::bytea") == ["1"], "a read-only configuration changes nothing")

        let context = ModelContext(try ModelContainer(for: PgPrice.self, configurations: configuration))
        let sorted = try context.fetch(FetchDescriptor<PgPrice>(sortBy: [SortDescriptor(\.amount)])).map { "\($0.amount)" }
        #expect(sorted == ["NaN", "-1", "1"])
        #expect(try PostgresServer.sql("SELECT value FROM \(namespace).osd_metadata WHERE key = 'decimalNaN'") == ["first"])
    }
}

@Model final class PgGauge {
    @Attribute(.unique) var reading: Double
    init(reading: Double) { self.reading = reading }
}

/// A namespace whose unique index on a floating-point attribute held NaN rows as equal (from
/// before) has it made again, once, when opened for saving: two NaNs are then two models.
@Suite struct PostgresUniqueNaNTests {
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aNamespaceFromBeforeHasItsUniqueIndexesMadeAgain() throws {
        let configuration = try PostgresServer.freshConfiguration("uniqnan")
        do {
            let context = ModelContext(try ModelContainer(for: PgGauge.self, configurations: configuration))
            context.insert(PgGauge(reading: .nan))
            try context.save()
        }
        let namespace = configuration.name
        try PostgresServer.sql("DROP INDEX \(namespace).\"osd_unique_PgGauge_0\"")
        try PostgresServer.sql("CREATE UNIQUE INDEX \"osd_unique_PgGauge_0\" ON \(namespace).\"PgGauge\" (reading)")
        try PostgresServer.sql("DELETE FROM \(namespace).osd_metadata WHERE key = 'uniqueNaN'")
        let context = ModelContext(try ModelContainer(for: PgGauge.self, configurations: configuration))
        context.insert(PgGauge(reading: .nan))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<PgGauge>()) == 2)
        #expect(try PostgresServer.sql("SELECT value FROM \(namespace).osd_metadata WHERE key = 'uniqueNaN'") == ["distinct"])
    }
}
