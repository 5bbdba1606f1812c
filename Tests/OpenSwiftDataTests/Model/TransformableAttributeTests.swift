import Foundation
import Testing
@testable import OpenSwiftData

/// A colour that is not `Codable`, as `UIColor` is not: only a value transformer can store it.
final class Colour: Equatable, CustomStringConvertible, @unchecked Sendable {
    let red: Double
    let green: Double
    let blue: Double

    init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    static func == (lhs: Colour, rhs: Colour) -> Bool {
        lhs.red == rhs.red && lhs.green == rhs.green && lhs.blue == rhs.blue
    }

    var description: String { "Colour(\(red), \(green), \(blue))" }
}

/// Turns a ``Colour`` into its three components' bytes and back, as Core Data asks of a
/// transformer: `transformedValue` makes `Data`, `reverseTransformedValue` reads it. A colour
/// with a negative component is refused.
final class ColourTransformer: ValueTransformer {
    /// Overridden as Apple platforms' code may (the initializer is not `required`).
    override init() { super.init() }

    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let colour = value as? Colour, min(colour.red, colour.green, colour.blue) >= 0 else { return nil }
        return [colour.red, colour.green, colour.blue].withUnsafeBytes { Data($0) }
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 3 * MemoryLayout<Double>.size else { return nil }
        let components = data.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        return Colour(red: components[0], green: components[1], blue: components[2])
    }
}

@Model
final class Swatch {
    var name: String
    @Attribute(.transformable(by: ColourTransformer.self), .preserveValueOnDeletion) var colour: Colour
    /// By the name it is registered under (``TransformableAttributeTests/registerTransformer()``).
    @Attribute(.transformable(by: "SwatchAccentTransformer")) var accent: Colour?
    /// `Codable`: stored as JSON, as every `Codable` value is.
    @Attribute(.transformable(by: ColourTransformer.self)) var tags: [String] = []

    init(name: String, colour: Colour, accent: Colour? = nil) {
        self.name = name
        self.colour = colour
        self.accent = accent
    }
}

/// An `NSSecureCoding` class, the kind Apple platforms store with an unarchiving transformer.
final class Pin: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let latitude: Double
    let label: String

    init(latitude: Double, label: String) {
        self.latitude = latitude
        self.label = label
    }

    func encode(with coder: NSCoder) {
        coder.encode(latitude, forKey: "latitude")
        coder.encode(label as NSString, forKey: "label")
    }

    required init?(coder: NSCoder) {
        latitude = coder.decodeDouble(forKey: "latitude")
        guard let label = coder.decodeObject(of: NSString.self, forKey: "label") else { return nil }
        self.label = label as String
    }

    override func isEqual(_ object: Any?) -> Bool {
        (object as? Pin).map { $0.latitude == latitude && $0.label == label } ?? false
    }
}

/// The transformer Apple's samples write for such a class.
final class PinTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [Pin.self] }
}

@Model
final class Pinboard {
    var title: String
    @Attribute(.transformable(by: PinTransformer.self)) var pin: Pin
    @Attribute(.transformable(by: PinTransformer.self)) var pins: Pin?

    init(title: String, pin: Pin) {
        self.title = title
        self.pin = pin
    }
}

@Model
final class UnregisteredSwatch {
    @Attribute(.transformable(by: "NoSuchTransformer")) var colour: Colour?
    init(colour: Colour?) { self.colour = colour }
}

/// `@Attribute(.transformable(by:))` on values that are not `Codable`: the transformer's `Data` is
/// what the store keeps, on every store.
@Suite struct TransformableAttributeTests {
    static let red = Colour(red: 1, green: 0, blue: 0)
    static let teal = Colour(red: 0, green: 0.5, blue: 0.5)

    static func registerTransformer() {
        ValueTransformer.setValueTransformer(ColourTransformer(), forName: NSValueTransformerName("SwatchAccentTransformer"))
    }

    func container(_ store: TemporaryStore, _ backend: Backend) throws -> ModelContainer {
        Self.registerTransformer()
        return try store.container(Swatch.self, backend: backend)
    }

    @Test(arguments: Backend.allCases)
    func valuesRoundTripThroughTheirTransformer(_ backend: Backend) throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try container(store, backend))
            let swatch = Swatch(name: "sea", colour: Self.teal, accent: Self.red)
            swatch.tags = ["cool"]
            context.insert(swatch)
            context.insert(Swatch(name: "plain", colour: Self.red))
            try context.save()
        }
        let context = ModelContext(try container(store, backend))
        let swatches = try context.fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.name)]))
        #expect(swatches.map(\.name) == ["plain", "sea"])
        #expect(swatches.map(\.colour) == [Self.red, Self.teal])
        #expect(swatches.map(\.accent) == [nil, Self.red])
        #expect(swatches.map(\.tags) == [[], ["cool"]])

        swatches[1].colour = Self.red
        swatches[1].accent = nil
        try context.save()
        let reopened = try ModelContext(try container(store, backend)).fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.name)]))
        #expect(reopened.map(\.colour) == [Self.red, Self.red])
        #expect(reopened.map(\.accent) == [nil, nil])
    }

    /// The stored bytes do not order or compare as the values do, so predicates on the attribute
    /// run in Swift (`nil` tests stay in SQL): the same models as evaluating the predicate.
    @Test(arguments: Backend.allCases)
    func predicatesOnATransformedAttributeGiveWhatEvaluationGives(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try container(store, backend))
        for step in 0..<12 {
            let level = Double(step) / 11
            context.insert(Swatch(name: "swatch \(step)", colour: Colour(red: level, green: 1 - level, blue: 0.25),
                                  accent: step.isMultiple(of: 3) ? nil : Colour(red: 0, green: 0, blue: level)))
        }
        try context.save()
        let predicates: [Predicate<Swatch>] = [
            #Predicate { $0.colour.red > 0.5 },
            #Predicate { $0.accent == nil },
            #Predicate { $0.accent != nil && $0.colour.green >= 0.5 },
            #Predicate { $0.accent?.blue ?? 2 < 0.5 },
        ]
        let all = try ModelContext(try container(store, backend)).fetch(FetchDescriptor<Swatch>())
        #expect(all.count == 12)
        for predicate in predicates {
            let fresh = ModelContext(try container(store, backend))
            let fetched = Set(try fresh.fetch(FetchDescriptor(predicate: predicate)).map(\.name))
            let evaluated = Set(try all.filter { try predicate.evaluate($0) }.map(\.name))
            #expect(fetched == evaluated, "\(predicate)")
            #expect(try fresh.fetchCount(FetchDescriptor(predicate: predicate)) == evaluated.count)
        }
    }

    @Test(arguments: Backend.allCases)
    func aValueItsTransformerRefusesFailsTheSaveNamingTheProperty(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try container(store, backend))
        context.insert(Swatch(name: "kept", colour: Self.red))
        try context.save()
        let refused = Swatch(name: "refused", colour: Colour(red: -1, green: 0, blue: 0))
        context.insert(refused)
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.reason?.contains("Swatch") == true && error?.reason?.contains("colour") == true,
                "\(String(describing: error))")
        #expect(try ModelContext(try container(store, backend)).fetch(FetchDescriptor<Swatch>()).map(\.name) == ["kept"],
                "nothing of the failed save was written")
        refused.colour = Self.teal
        try context.save()
        #expect(try ModelContext(try container(store, backend)).fetchCount(FetchDescriptor<Swatch>()) == 2)
    }

    @Test(arguments: Backend.allCases)
    func anUnarchivingTransformerArchivesToStoreAndUnarchivesToRead(_ backend: Backend) throws {
        let store = TemporaryStore()
        let pin = Pin(latitude: 48.8566, label: "Paris ☕︎")
        do {
            let context = ModelContext(try store.container(Pinboard.self, backend: backend))
            context.insert(Pinboard(title: "trip", pin: pin))
            try context.save()
        }
        let context = ModelContext(try store.container(Pinboard.self, backend: backend))
        let boards = try context.fetch(FetchDescriptor<Pinboard>())
        #expect(boards.map(\.pin) == [pin])
        #expect(boards.map(\.pins) == [nil])
        if backend == .sqlite {
            let connection = try SQLiteConnection(path: store.url.path, readOnly: true, create: false)
            let select = try connection.uncachedStatement("SELECT \"pin\" FROM \"Pinboard\"")
            #expect(try select.step())
            let stored = select._withBytes(0) { Data($0) }
            #expect(stored.starts(with: Data("bplist".utf8)), "the store holds the keyed archive")
        }
    }

    /// Bytes the unarchiving transformer cannot read back (another program wrote them) fail the
    /// fetch with an error naming the property and the transformer, not a value made up.
    @Test func bytesThatDoNotUnarchiveAreAnErrorNamingThePropertyAndTransformer() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Pinboard.self, backend: .sqlite))
            context.insert(Pinboard(title: "trip", pin: Pin(latitude: 1, label: "here")))
            try context.save()
        }
        do {
            let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
            try connection.execute("UPDATE \"Pinboard\" SET \"pin\" = x'00010203'")
        }
        let context = ModelContext(try store.container(Pinboard.self, backend: .sqlite))
        let error = #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor<Pinboard>()) }
        let reason = error?.reason ?? ""
        #expect(reason.contains("Pinboard.pin") && reason.contains("PinTransformer"), "\(reason)")
    }

    /// The schema says which attributes pass through a transformer.
    @Test func theSchemaMarksTransformableAttributes() throws {
        let attributes = Dictionary(uniqueKeysWithValues: try #require(Schema([Swatch.self]).entitiesByName["Swatch"]).attributes.map { ($0.name, $0) })
        #expect(attributes["colour"]?.isTransformable == true)
        #expect(attributes["accent"]?.isTransformable == true)
        #expect(attributes["tags"]?.isTransformable == true)
        #expect(attributes["name"]?.isTransformable == false)
    }

    @Test func anUnregisteredTransformerNameIsAnErrorNamingIt() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(UnregisteredSwatch.self))
        context.insert(UnregisteredSwatch(colour: nil))
        try context.save()
        context.insert(UnregisteredSwatch(colour: Self.red))
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.reason?.contains("NoSuchTransformer") == true, "\(String(describing: error))")
    }

    /// A deletion keeps the `.preserveValueOnDeletion` value in the history as the bytes the
    /// transformer made (the value itself need not be `Sendable`).
    @Test func aPreservedTransformedValueIsInTheTombstoneAsItsBytes() throws {
        let store = TemporaryStore()
        let context = ModelContext(try container(store, .sqlite))
        let swatch = Swatch(name: "gone", colour: Self.teal)
        context.insert(swatch)
        try context.save()
        context.delete(swatch)
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let deletion = history.last?.changes.compactMap { change -> DefaultHistoryDelete<Swatch>? in
            if case .delete(let deletion as DefaultHistoryDelete<Swatch>) = change { return deletion }
            return nil
        }.first
        let bytes = try #require(deletion?.tombstone[\Swatch.colour] as? Data)
        #expect(ColourTransformer().reverseTransformedValue(bytes) as? Colour == Self.teal)
    }

    @Test func undoRestoresTheTransformedValue() throws {
        let store = TemporaryStore()
        let context = ModelContext(try container(store, .sqlite))
        let manager = UndoManager()
        context.undoManager = manager
        let swatch = Swatch(name: "sea", colour: Self.teal)
        context.insert(swatch)
        try context.save()
        manager.removeAllActions()
        swatch.colour = Self.red
        manager.undo()
        #expect(swatch.colour == Self.teal)
        try context.save()
        #expect(try ModelContext(try container(store, .sqlite)).fetch(FetchDescriptor<Swatch>()).map(\.colour) == [Self.teal])
    }
}
