import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

@Model final class PgMeasurement {
    var value: Double
    var spare: Double?
    init(value: Double, spare: Double?) {
        self.value = value
        self.spare = spare
    }
}

/// Floating-point sums run in the server, in the namespace's `osd_sum_real` aggregate, and equal
/// Swift's `+` over the fetched values, bit for bit; where the server refuses a sum (finite values
/// adding up to infinity) the store reads the values and Swift adds them.
@Suite struct PostgresSumTests {
    /// Whether the namespace of `configuration` has the aggregate.
    static func hasAggregate(_ configuration: PostgresStoreConfiguration) throws -> Bool {
        try PostgresServer.sql("""
            SELECT count(*)::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = '\(configuration.name)' AND p.proname = 'osd_sum_real'
            """) == ["1"]
    }

    /// Whether `sum` of both properties over `descriptor` is the reduction of the fetched values,
    /// bit for bit (any NaN for a NaN).
    static func sumsMatchTheFetch(_ context: ModelContext, _ descriptor: FetchDescriptor<PgMeasurement>) throws -> Bool {
        func same(_ lhs: Double, _ rhs: Double) -> Bool { lhs.isNaN ? rhs.isNaN : lhs.bitPattern == rhs.bitPattern }
        let fetched = try context.fetch(descriptor)
        let values = fetched.map(\.value).reduce(0, +)
        let spares = fetched.compactMap(\.spare).reduce(0, +)
        let spareSum = try context.sum(of: \PgMeasurement.spare, in: descriptor)
        return try same(context.sum(of: \PgMeasurement.value, in: descriptor), values) && same(spareSum, spares)
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func sumsAddAsSwiftAddsWhateverTheValues() throws {
        let configuration = try PostgresServer.freshConfiguration("sums")
        let container = try ModelContainer(for: PgMeasurement.self, configurations: configuration)
        #expect(try Self.hasAggregate(configuration))
        let context = ModelContext(container)
        // Magnitudes far apart, so that another order of addition rounds differently.
        for index in 0..<300 {
            let value = (index.isMultiple(of: 2) ? 1 : -1) * (1 + Double(index % 9) / 7) * pow(10, Double((index * 7) % 25 - 12))
            context.insert(PgMeasurement(value: value, spare: index.isMultiple(of: 3) ? nil : -0.0))
        }
        try context.save()
        let reader = ModelContext(container)
        #expect(try Self.sumsMatchTheFetch(reader, FetchDescriptor()))
        #expect(try Self.sumsMatchTheFetch(reader, FetchDescriptor(predicate: #Predicate { $0.value > 0 })))
        #expect(try reader.sum(of: \PgMeasurement.spare, in: FetchDescriptor(predicate: #Predicate { $0.value > 1e300 })).bitPattern == 0)

        // Finite values whose sum overflows (the server refuses it), infinities and NaN.
        for value in [Double.greatestFiniteMagnitude, .greatestFiniteMagnitude, -1e308] {
            context.insert(PgMeasurement(value: value, spare: value))
        }
        try context.save()
        #expect(try reader.sum(of: \PgMeasurement.spare) == .infinity)
        #expect(try Self.sumsMatchTheFetch(reader, FetchDescriptor()))
        context.insert(PgMeasurement(value: -.infinity, spare: .nan))
        try context.save()
        #expect(try reader.sum(of: \PgMeasurement.value).isNaN)
        #expect(try reader.sum(of: \PgMeasurement.spare).isNaN)
        #expect(try Self.sumsMatchTheFetch(reader, FetchDescriptor(predicate: #Predicate { $0.value < 0 })))
    }

    /// The sum is the server's: an aggregate of that name that adds something else shows in it.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func theServerAddsTheValues() throws {
        let configuration = try PostgresServer.freshConfiguration("sumsrv")
        let container = try ModelContainer(for: PgMeasurement.self, configurations: configuration)
        let context = ModelContext(container)
        for value in [0.5, 1.25] { context.insert(PgMeasurement(value: value, spare: nil)) }
        try context.save()
        #expect(try context.sum(of: \PgMeasurement.value) == 1.75)
        let namespace = configuration.name
        try PostgresServer.sql("DROP AGGREGATE \(namespace).osd_sum_real(double precision)")
        try PostgresServer.sql("CREATE AGGREGATE \(namespace).osd_sum_real(double precision) (SFUNC = float8pl, STYPE = double precision, INITCOND = '100')")
        #expect(try context.sum(of: \PgMeasurement.value) == 101.75)
    }

    /// A namespace from before the aggregate gets it when it is next opened for saving; opened
    /// read-only, it is left as it is and its sums are added in Swift.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aNamespaceFromBeforeGetsTheAggregateWhenOpenedForSaving() throws {
        let configuration = try PostgresServer.freshConfiguration("sumold")
        do {
            let context = ModelContext(try ModelContainer(for: PgMeasurement.self, configurations: configuration))
            for value in [1e16, 1, -1e16, 3] { context.insert(PgMeasurement(value: value, spare: value)) }
            try context.save()
        }
        let namespace = configuration.name
        try PostgresServer.sql("DROP AGGREGATE \(namespace).osd_sum_real(double precision)")
        try PostgresServer.sql("DELETE FROM \(namespace).osd_metadata WHERE key = 'swiftSum'")
        let readOnly = PostgresStoreConfiguration(name: namespace, url: configuration.url, allowsSave: false)
        let reader = ModelContext(try ModelContainer(for: PgMeasurement.self, configurations: readOnly))
        #expect(try Self.sumsMatchTheFetch(reader, FetchDescriptor()))
        #expect(try !Self.hasAggregate(configuration), "a read-only configuration changes nothing")

        let context = ModelContext(try ModelContainer(for: PgMeasurement.self, configurations: configuration))
        #expect(try Self.hasAggregate(configuration))
        #expect(try PostgresServer.sql("SELECT value FROM \(namespace).osd_metadata WHERE key = 'swiftSum'") == ["1"])
        #expect(try Self.sumsMatchTheFetch(context, FetchDescriptor()))
    }
}

