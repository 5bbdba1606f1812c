import Foundation
import Testing
@testable import OpenSwiftData

// Fixed-size scalars (`Int`, `Double`, `Date`, `UUID`, …) keep their value without an `Optional`
// around it; a bit of the model says whether it is loaded. These tests load such properties every
// way a model can leave them unloaded, in a root class and in a subclass (whose bits sit after its
// superclass's, and whose inherited getters load from the subclass's own table), with random
// values including each type's extremes.

@Model
final class Reading {
    var label: String
    var count: Int
    var level: Int8
    var total: UInt64
    var ratio: Double
    var weight: Float
    var takenAt: Date
    var tag: UUID

    init(label: String, count: Int, level: Int8, total: UInt64, ratio: Double, weight: Float, takenAt: Date, tag: UUID) {
        self.label = label
        self.count = count
        self.level = level
        self.total = total
        self.ratio = ratio
        self.weight = weight
        self.takenAt = takenAt
        self.tag = tag
    }

    /// The values as one comparable row (floating-point values by bit pattern, so NaN compares).
    var values: [String] {
        [label, "\(count)", "\(level)", "\(total)", "\(ratio.bitPattern)", "\(weight.bitPattern)",
         "\(takenAt.timeIntervalSinceReferenceDate.bitPattern)", tag.uuidString]
    }
}

@Model
class Meter {
    var serial: Int
    var name: String

    init(serial: Int, name: String) {
        self.serial = serial
        self.name = name
    }
}

@Model
final class Gauge: Meter {
    var pressure: Double
    var checkedAt: Date
    var cycles: UInt32

    init(serial: Int, name: String, pressure: Double, checkedAt: Date, cycles: UInt32) {
        self.pressure = pressure
        self.checkedAt = checkedAt
        self.cycles = cycles
        super.init(serial: serial, name: name)
    }

    var values: [String] {
        ["\(serial)", name, "\(pressure.bitPattern)", "\(checkedAt.timeIntervalSinceReferenceDate.bitPattern)", "\(cycles)"]
    }
}

struct UnwrappedStorageTests {
    let store = TemporaryStore()

    static func readings(count: Int, seed: UInt64) -> [Reading] {
        var random = SeededGenerator(seed: seed)
        let doubles: [Double] = [0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
        let dates: [Date] = [.distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 0)]
        return (0..<count).map { index in
            Reading(
                label: "reading \(index)",
                count: index % 5 == 0 ? [Int.min, Int.max, 0, -1, 1][index / 5 % 5] : Int.random(in: .min ... .max, using: &random),
                level: Int8.random(in: .min ... .max, using: &random),
                total: index % 7 == 0 ? UInt64.max : UInt64.random(in: 0 ... .max, using: &random),
                ratio: index % 3 == 0 ? doubles[index / 3 % doubles.count] : Double.random(in: -1e12 ... 1e12, using: &random),
                weight: Float.random(in: -1000 ... 1000, using: &random),
                takenAt: index % 4 == 0 ? dates[index / 4 % dates.count]
                    : Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9 ... 1e9, using: &random)),
                tag: UUID())
        }
    }

    func seed(_ backend: Backend) throws -> [String: [String]] {
        let context = ModelContext(try store.container(Reading.self, backend: backend))
        let readings = Self.readings(count: 60, seed: 7)
        for reading in readings { context.insert(reading) }
        try context.save()
        return Dictionary(uniqueKeysWithValues: readings.map { ($0.label, $0.values) })
    }

    /// Expects exactly the readings of `expected`, each with its values.
    func expect(_ readings: [Reading], toMatch expected: [String: [String]], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(readings.count == expected.count, sourceLocation: sourceLocation)
        for reading in readings {
            #expect(reading.values == expected[reading.label], "\(reading.label)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Backend.allCases)
    func propertiesLeftOutOfAFetchLoadWithTheirStoredValues(_ backend: Backend) throws {
        let expected = try seed(backend)
        // A new container: the models come from the store, not from memory.
        let context = ModelContext(try store.container(Reading.self, backend: backend))
        var descriptor = FetchDescriptor<Reading>()
        descriptor.propertiesToFetch = [\.label]
        expect(try context.fetch(descriptor), toMatch: expected)
    }

    @Test(arguments: Backend.allCases)
    func aFaultLoadsEveryScalarOnFirstRead(_ backend: Backend) throws {
        let expected = try seed(backend)
        let container = try store.container(Reading.self, backend: backend)
        let identifiers = try ModelContext(container).fetchIdentifiers(FetchDescriptor<Reading>())
        let context = ModelContext(container)
        for identifier in identifiers {
            let reading = try #require(context.model(for: identifier) as? Reading)
            // The first property read is a scalar, not the label the fetch would load first.
            let count = reading.count
            #expect(reading.values == expected[reading.label])
            #expect("\(count)" == expected[reading.label]?[1])
        }
    }

    @Test(arguments: Backend.allCases)
    func aPartlyLoadedModelSavesOneChangeAndKeepsTheRest(_ backend: Backend) throws {
        var expected = try seed(backend)
        do {
            let context = ModelContext(try store.container(Reading.self, backend: backend))
            var descriptor = FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.label)])
            descriptor.propertiesToFetch = [\.label]
            for (index, reading) in try context.fetch(descriptor).enumerated() where index.isMultiple(of: 2) {
                reading.ratio = Double(index) / 4   // set without reading anything first
                expected[reading.label]?[4] = "\(reading.ratio.bitPattern)"
            }
            try context.save()
        }
        expect(try ModelContext(try store.container(Reading.self, backend: backend)).fetch(FetchDescriptor<Reading>()), toMatch: expected)
    }

    @Test(arguments: Backend.allCases)
    func rollbackAndOtherContextsSavesReloadScalars(_ backend: Backend) throws {
        let expected = try seed(backend)
        let container = try store.container(Reading.self, backend: backend)
        let context = ModelContext(container)
        let readings = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.label)]))
        for reading in readings {
            reading.count = 42
            reading.takenAt = .now
        }
        context.rollback()
        for reading in readings {
            #expect(reading.values == expected[reading.label], "rollback restores \(reading.label)")
        }
        // Another context changes one reading; this context's model reads the new value once it
        // learns of the save.
        let other = ModelContext(container)
        let first = try #require(try other.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.label)])).first)
        first.total = 12_345
        try other.save()
        let mine = try #require(readings.first)
        _ = try context.fetch(FetchDescriptor<Reading>())
        #expect(mine.total == 12_345)
        #expect(mine.label == first.label)
    }

    @Test(arguments: Backend.allCases)
    func aSubclassLoadsItsOwnScalarsAfterItsSuperclasss(_ backend: Backend) throws {
        var random = SeededGenerator(seed: 11)
        var expected: [Int: [String]] = [:]
        do {
            let context = ModelContext(try store.container(Meter.self, Gauge.self, backend: backend))
            for serial in 0..<40 {
                let gauge = Gauge(
                    serial: serial, name: "gauge \(serial)", pressure: Double.random(in: -1e6 ... 1e6, using: &random),
                    checkedAt: Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9 ... 1e9, using: &random)),
                    cycles: UInt32.random(in: 0 ... .max, using: &random))
                context.insert(gauge)
                expected[serial] = gauge.values
            }
            try context.save()
        }
        let container = try store.container(Meter.self, Gauge.self, backend: backend)
        var descriptor = FetchDescriptor<Gauge>()
        descriptor.propertiesToFetch = [\.name]
        let gauges = try ModelContext(container).fetch(descriptor)
        #expect(gauges.count == 40)
        for gauge in gauges {
            #expect(gauge.values == expected[gauge.serial], "gauge \(gauge.serial)")
        }
        // Through the superclass: the subclass's own scalars still load.
        let meters = try ModelContext(container).fetch(FetchDescriptor<Meter>())
        for case let gauge as Gauge in meters {
            #expect(gauge.values == expected[gauge.serial], "gauge \(gauge.serial) as a meter")
        }
        #expect(meters.count == 40)
        // A fault of the subclass whose first read is an inherited property.
        let identifiers = try ModelContext(container).fetchIdentifiers(FetchDescriptor<Gauge>())
        let context = ModelContext(container)
        for identifier in identifiers {
            let gauge = try #require(context.model(for: identifier) as? Gauge)
            let serial = gauge.serial
            #expect(gauge.values == expected[serial], "gauge \(serial) as a fault")
        }
        #expect(identifiers.count == 40)
    }
}
