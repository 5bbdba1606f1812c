import Foundation
import Testing
@testable import OpenSwiftData

/// Values survive a save, a reopen of the store and a fetch exactly.
@Suite struct ValueRoundTripTests {
    /// Saves one model, reopens the store and returns the fetched copy.
    private func roundTrip(_ make: () -> AllTypes) throws -> (original: AllTypes, fetched: AllTypes) {
        let store = TemporaryStore()
        let original = make()
        do {
            let context = ModelContext(try store.container(AllTypes.self))
            context.insert(original)
            try context.save()
        }
        let context = ModelContext(try store.container(AllTypes.self))
        let fetched = try context.fetch(FetchDescriptor<AllTypes>())
        #expect(fetched.count == 1)
        return (original, try #require(fetched.first))
    }

    /// Many rows in one save, each with its own mix of `nil` and set optionals and of short, long
    /// and empty texts, read back after a reopen each with its own values: nothing one row wrote
    /// is left over for the next (the save reuses one insert statement for all of them).
    @Test(arguments: [1, 2])
    func rowsOfOneSaveKeepTheirOwnValues(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let store = TemporaryStore()
        struct Expected {
            var string: String, optionalString: String?, optionalInt: Int?, optionalDouble: Double?
            var optionalData: Data?, optionalAddress: Address?, optionalMood: Mood?, data: Data
        }
        var expected: [Int: Expected] = [:]
        do {
            let context = ModelContext(try store.container(AllTypes.self))
            for index in 0..<300 {
                let model = AllTypes(seed: index)
                let length = [0, 1, 17, 4_096, 4_097, 9_000][Int.random(in: 0..<6, using: &generator)]
                model.string = String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: length)
                model.optionalString = Bool.random(using: &generator) ? nil : "o\(index)" + String(repeating: "x", count: Int.random(in: 0..<5_000, using: &generator))
                model.optionalInt = Bool.random(using: &generator) ? nil : index * 7
                model.optionalDouble = Bool.random(using: &generator) ? nil : Double(index) / 3
                model.optionalData = Bool.random(using: &generator) ? nil : Data(repeating: UInt8(index % 256), count: index % 9)
                model.optionalAddress = Bool.random(using: &generator) ? nil : Address(street: "s\(index)", zip: index, tags: ["t\(index)"])
                model.optionalMood = Bool.random(using: &generator) ? nil : Mood.allCases[index % 3]
                model.data = Data(repeating: 1, count: index % 3)
                expected[index] = Expected(
                    string: model.string, optionalString: model.optionalString, optionalInt: model.optionalInt,
                    optionalDouble: model.optionalDouble, optionalData: model.optionalData,
                    optionalAddress: model.optionalAddress, optionalMood: model.optionalMood, data: model.data)
                context.insert(model)
            }
            try context.save()
        }
        let fetched = try ModelContext(try store.container(AllTypes.self)).fetch(FetchDescriptor<AllTypes>())
        #expect(fetched.count == 300)
        for model in fetched {
            let want = try #require(expected[model.int])
            #expect(model.string == want.string, "row \(model.int)")
            #expect(model.optionalString == want.optionalString, "row \(model.int)")
            #expect(model.optionalInt == want.optionalInt, "row \(model.int)")
            #expect(model.optionalDouble == want.optionalDouble, "row \(model.int)")
            #expect(model.optionalData == want.optionalData, "row \(model.int)")
            #expect(model.optionalAddress == want.optionalAddress, "row \(model.int)")
            #expect(model.optionalMood == want.optionalMood, "row \(model.int)")
            #expect(model.data == want.data, "row \(model.int)")
        }
    }

    /// Extreme integers, exact floating-point bits and every Foundation value round-trip.
    @Test func extremesRoundTripExactly() throws {
        let uuid = UUID()
        let (_, fetched) = try roundTrip {
            let model = AllTypes(seed: 0)
            model.int = .min
            model.int8 = .min
            model.int16 = .max
            model.int32 = .min
            model.int64 = .max
            model.uint = .max
            model.uint8 = .max
            model.uint16 = .max
            model.uint32 = .max
            model.uint64 = .max
            model.float = .leastNonzeroMagnitude
            model.double = -0.0
            model.date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789)
            model.data = Data((0...255).map(UInt8.init))
            model.url = URL(string: "file:///tmp/a%20b?q=1#frag")!
            model.uuid = uuid
            model.decimal = Decimal(string: "-12345678901234567890.123456789")!
            return model
        }
        #expect(fetched.int == .min)
        #expect(fetched.int8 == .min)
        #expect(fetched.int16 == .max)
        #expect(fetched.int32 == .min)
        #expect(fetched.int64 == .max)
        #expect(fetched.uint == .max)
        #expect(fetched.uint8 == .max)
        #expect(fetched.uint16 == .max)
        #expect(fetched.uint32 == .max)
        #expect(fetched.uint64 == .max)
        #expect(fetched.float.bitPattern == Float.leastNonzeroMagnitude.bitPattern)
        #expect(fetched.double.bitPattern == (-0.0 as Double).bitPattern)
        #expect(fetched.date.timeIntervalSinceReferenceDate.bitPattern == (123_456_789.123_456_789 as Double).bitPattern)
        #expect(fetched.data == Data((0...255).map(UInt8.init)))
        #expect(fetched.url.absoluteString == "file:///tmp/a%20b?q=1#frag")
        #expect(fetched.uuid == uuid)
        #expect(fetched.decimal == Decimal(string: "-12345678901234567890.123456789")!)
    }

    /// NaN (with its payload) and both infinities survive, for Double and Float.
    @Test(arguments: [Double.nan, -Double.nan, Double(bitPattern: 0x7FF8_0000_0000_1234), .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude])
    func doublesRoundTripBitExactly(value: Double) throws {
        let (_, fetched) = try roundTrip {
            let model = AllTypes(seed: 1)
            model.double = value
            model.optionalDouble = value
            model.float = Float(value)
            return model
        }
        #expect(fetched.double.bitPattern == value.bitPattern)
        #expect(fetched.optionalDouble?.bitPattern == value.bitPattern)
        #expect(fetched.float.bitPattern == Float(value).bitPattern)
    }

    /// Empty, huge and arbitrary Unicode text comes back byte for byte.
    @Test(arguments: ["", "e\u{301}", "é", "👨‍👩‍👧‍👦 family", "\u{0}nul\u{0}", "line\r\nbreak", "\u{212A}elvin", "日本語のテキスト"])
    func textRoundTripsByteForByte(text: String) throws {
        if TemporaryStore.defaultBackend == .postgres, text.utf8.contains(0) {
            // PostgreSQL text cannot hold U+0000: the save names the model and property instead.
            let error = #expect(throws: SwiftDataError.modelValidationFailure) {
                try roundTrip {
                    let model = AllTypes(seed: 2)
                    model.string = text
                    return model
                }
            }
            #expect(error?.description.contains("AllTypes.string") == true)
            return
        }
        let (_, fetched) = try roundTrip {
            let model = AllTypes(seed: 2)
            model.string = text
            model.optionalString = text
            return model
        }
        #expect(Array(fetched.string.utf8) == Array(text.utf8))
        #expect(fetched.optionalString.map { Array($0.utf8) } == Array(text.utf8))
    }

    /// A 10 MB string round-trips.
    @Test func tenMegabyteTextRoundTrips() throws {
        let text = String(repeating: "0123456789", count: 1_000_000)
        let (_, fetched) = try roundTrip {
            let model = AllTypes(seed: 9)
            model.string = text
            return model
        }
        #expect(fetched.string.utf8.count == 10_000_000)
        #expect(fetched.string == text)
    }

    /// Optionals come back as `nil` and as values; empty data stays empty, not nil.
    @Test func optionalsAndEmptiesRoundTrip() throws {
        let (_, nils) = try roundTrip { AllTypes(seed: 3) }
        #expect(nils.optionalInt == nil)
        #expect(nils.optionalDouble == nil)
        #expect(nils.optionalString == nil)
        #expect(nils.optionalDate == nil)
        #expect(nils.optionalData == nil)
        #expect(nils.optionalUUID == nil)
        #expect(nils.optionalDecimal == nil)
        #expect(nils.optionalURL == nil)
        #expect(nils.optionalMood == nil)
        #expect(nils.optionalAddress == nil)

        let uuid = UUID()
        let (_, values) = try roundTrip {
            let model = AllTypes(seed: 4)
            model.optionalInt = 0
            model.optionalDouble = 0
            model.optionalString = ""
            model.optionalDate = Date(timeIntervalSinceReferenceDate: -1)
            model.optionalData = Data()
            model.optionalUUID = uuid
            model.optionalDecimal = Decimal(string: "0.001")
            model.optionalURL = URL(string: "https://swift.org")
            model.optionalMood = .grumpy
            model.optionalAddress = Address(street: "Main", zip: 1, tags: ["a"])
            model.data = Data()
            return model
        }
        #expect(values.optionalInt == 0)
        #expect(values.optionalDouble == 0)
        #expect(values.optionalString == "")
        #expect(values.optionalDate == Date(timeIntervalSinceReferenceDate: -1))
        #expect(values.optionalData == Data())
        #expect(values.optionalUUID == uuid)
        #expect(values.optionalDecimal == Decimal(string: "0.001"))
        #expect(values.optionalURL == URL(string: "https://swift.org"))
        #expect(values.optionalMood == .grumpy)
        #expect(values.optionalAddress == Address(street: "Main", zip: 1, tags: ["a"]))
        #expect(values.data == Data())
    }

    /// Collections, Codable enums and Codable structs round-trip through JSON.
    @Test func codableValuesRoundTrip() throws {
        let (_, fetched) = try roundTrip {
            let model = AllTypes(seed: 5)
            model.strings = ["b", "a", "", "é"]
            model.numbers = [3, 1, 2]
            model.dictionary = ["x": 1.5, "nan": .nan, "inf": .infinity]
            model.mood = .happy
            model.address = Address(street: "Rue de Rivoli", zip: 75001, tags: ["paris"])
            model.addresses = [Address(street: "A", zip: 1, tags: []), Address(street: "B", zip: 2, tags: ["x"])]
            return model
        }
        #expect(fetched.strings == ["b", "a", "", "é"])
        #expect(fetched.numbers == [1, 2, 3])
        #expect(fetched.dictionary["x"] == 1.5)
        #expect(fetched.dictionary["nan"]?.isNaN == true)
        #expect(fetched.dictionary["inf"] == .infinity)
        #expect(fetched.mood == .happy)
        #expect(fetched.address == Address(street: "Rue de Rivoli", zip: 75001, tags: ["paris"]))
        #expect(fetched.addresses.map(\.street) == ["A", "B"])
    }

    /// Decimal's stored bytes sort in numeric order, so SQL comparisons are exact.
    @Test func decimalEncodingPreservesOrder() throws {
        let texts = ["-1000", "-10", "-9.99", "-9.9", "-1", "-0.5", "-0.05", "0", "0.001", "0.01", "0.1", "0.5", "1", "1.5", "9", "9.9", "10", "99.999", "100", "1e20", "123456789012345678901234567890"]
        let values = texts.map { Decimal(string: $0)! }
        let encoded = values.map(OrderedDecimalCoding.encode)
        for index in encoded.indices.dropLast() {
            #expect(encoded[index].lexicographicallyPrecedes(encoded[index + 1]), "\(texts[index]) < \(texts[index + 1])")
        }
        for (value, bytes) in zip(values, encoded) {
            #expect(bytes.withUnsafeBytes { OrderedDecimalCoding.decode($0) } == value)
        }
        #expect(OrderedDecimalCoding.encode(Decimal(string: "1.50")!) == OrderedDecimalCoding.encode(Decimal(string: "1.5")!))
    }
}
