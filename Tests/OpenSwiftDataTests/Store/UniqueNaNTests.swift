import Foundation
import Testing
@testable import OpenSwiftData

@Model final class UNReading {
    @Attribute(.unique) var value: Double
    var label: String
    init(value: Double, label: String) {
        self.value = value
        self.label = label
    }
}

@Model final class UNSample {
    #Unique<UNSample>([\.probe, \.level])
    var probe: String
    var level: Float
    init(probe: String, level: Float) {
        self.probe = probe
        self.level = level
    }
}

/// NaN equals nothing in Swift, not even itself: a model whose unique floating-point property is
/// NaN never matches another, as one whose unique property is `nil` does not, so it is inserted
/// beside them, never upserted over them.
@Suite struct UniqueNaNTests {
    let store = TemporaryStore()

    /// (A custom `DataStore` keeps uniqueness its own way, if at all.)
    @Test(arguments: Backend.allCases.filter { $0 != .dataStore })
    func aNaNInAUniquePropertyMatchesNoOtherModel(_ backend: Backend) throws {
        do {
            let context = ModelContext(try store.container(UNReading.self, UNSample.self, backend: backend))
            context.insert(UNReading(value: .nan, label: "first"))
            context.insert(UNSample(probe: "a", level: .nan))
            try context.save()
            context.insert(UNReading(value: .nan, label: "second"))
            context.insert(UNReading(value: .nan, label: "third"))   // in the same save
            context.insert(UNReading(value: 1, label: "one"))
            context.insert(UNSample(probe: "a", level: .nan))
            context.insert(UNSample(probe: "a", level: 2))
            try context.save()
            // A number still upserts.
            context.insert(UNReading(value: 1, label: "one again"))
            context.insert(UNSample(probe: "a", level: 2))
            try context.save()
        }
        let context = ModelContext(try store.container(UNReading.self, UNSample.self, backend: backend))
        let readings = try context.fetch(FetchDescriptor<UNReading>()).map(\.label).sorted()
        #expect(readings == ["first", "one again", "second", "third"])
        let samples = try context.fetch(FetchDescriptor<UNSample>())
        #expect(samples.count == 3)
        #expect(samples.filter { $0.level.isNaN }.count == 2)
    }

    /// A store whose unique indexes held NaN rows (from before) has them made again, once, when
    /// it is next opened for saving; its rows stay as they are.
    @Test func aStoreFromBeforeHasItsUniqueIndexesMadeAgain() throws {
        do {
            let context = ModelContext(try store.container(UNReading.self, UNSample.self, backend: .sqlite))
            context.insert(UNReading(value: .nan, label: "kept"))
            try context.save()
        }
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("""
            DROP INDEX "osd_unique_UNReading_0"; CREATE UNIQUE INDEX "osd_unique_UNReading_0" ON "UNReading" ("value");
            DELETE FROM osd_metadata WHERE key = 'uniqueNaN'
            """)
        let context = ModelContext(try store.container(UNReading.self, UNSample.self, backend: .sqlite))
        context.insert(UNReading(value: .nan, label: "added"))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<UNReading>()).map(\.label).sorted() == ["added", "kept"])
        let definition = try connection.uncachedStatement("SELECT sql FROM sqlite_master WHERE name = 'osd_unique_UNReading_0'")
        #expect(try definition.step() && definition._string(0).contains("WHERE typeof(\"value\") <> 'blob'"))
    }
}
