import Foundation
import OpenSwiftData

enum Mood: String, Codable, CaseIterable {
    case happy, calm, grumpy
}

struct Address: Codable, Equatable, Hashable {
    var street: String
    var zip: Int
    var tags: [String]
}

/// Every attribute type the core stores.
@Model
final class AllTypes {
    var bool: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var float: Float
    var double: Double
    var string: String
    var date: Date
    var data: Data
    var url: URL
    var uuid: UUID
    var decimal: Decimal
    var optionalInt: Int?
    var optionalDouble: Double?
    var optionalString: String?
    var optionalDate: Date?
    var optionalData: Data?
    var optionalUUID: UUID?
    var optionalDecimal: Decimal?
    var optionalURL: URL?
    var strings: [String]
    var numbers: Set<Int>
    var dictionary: [String: Double]
    var mood: Mood
    var optionalMood: Mood?
    var address: Address
    var optionalAddress: Address?
    var addresses: [Address]
    var licence: Licence

    init(seed: Int) {
        bool = seed % 2 == 0
        int = seed
        int8 = Int8(truncatingIfNeeded: seed)
        int16 = Int16(truncatingIfNeeded: seed)
        int32 = Int32(truncatingIfNeeded: seed)
        int64 = Int64(seed)
        uint = UInt(seed)
        uint8 = UInt8(truncatingIfNeeded: seed)
        uint16 = UInt16(truncatingIfNeeded: seed)
        uint32 = UInt32(truncatingIfNeeded: seed)
        uint64 = UInt64(seed)
        float = Float(seed)
        double = Double(seed)
        string = "\(seed)"
        date = Date(timeIntervalSinceReferenceDate: Double(seed))
        data = Data([UInt8(truncatingIfNeeded: seed)])
        url = URL(string: "https://example.com/\(seed)")!
        uuid = UUID()
        decimal = Decimal(seed)
        strings = []
        numbers = []
        dictionary = [:]
        mood = .calm
        address = Address(street: "", zip: 0, tags: [])
        addresses = []
        licence = Licence(number: seed, holder: "", issued: Date(timeIntervalSinceReferenceDate: 0), code: UUID(), url: URL(fileURLWithPath: "/"))
    }
}

/// The model of the predicate differential test.
@Model
final class Item {
    var name: String
    var note: String?
    var count: Int
    var optionalCount: Int?
    var score: Double
    var optionalScore: Double?
    var flag: Bool
    var date: Date
    var price: Decimal
    var big: UInt64
    var code: UUID
    var mood: Mood

    init(name: String, note: String?, count: Int, optionalCount: Int?, score: Double, optionalScore: Double?,
         flag: Bool, date: Date, price: Decimal, big: UInt64, code: UUID, mood: Mood) {
        self.name = name
        self.note = note
        self.count = count
        self.optionalCount = optionalCount
        self.score = score
        self.optionalScore = optionalScore
        self.flag = flag
        self.date = date
        self.price = price
        self.big = big
        self.code = code
        self.mood = mood
    }
}

/// A model with a unique attribute, an index and a transient property.
@Model
final class Person {
    #Index<Person>([\.familyName], [\.givenName, \.familyName])
    @Attribute(.unique) var email: String
    var givenName: String
    var familyName: String
    var age: Int = 0
    @Transient var visits = 7

    init(email: String, givenName: String, familyName: String) {
        self.email = email
        self.givenName = givenName
        self.familyName = familyName
    }
}

/// A model with an external-storage attribute.
@Model
final class Photo {
    var title: String
    @Attribute(.externalStorage) var pixels: Data

    init(title: String, pixels: Data) {
        self.title = title
        self.pixels = pixels
    }
}

/// A non-final model class.
@Model
class Note {
    var text: String
    var created = Date(timeIntervalSinceReferenceDate: 0)

    init(text: String) {
        self.text = text
    }
}

/// A transformer, as SwiftData users declare them for `.transformable(by:)`.
final class ColorTransformer: ValueTransformer {}

struct Color: Codable, Equatable {
    var red: Double, green: Double, blue: Double
}

/// A value stored through its `Codable` representation (`@Attribute(.codable)`).
struct GadgetSettings: Codable, Equatable {
    enum Mode: String, Codable { case eco, boost }
    var mode: Mode
    var levels: [Int]
}

/// Every `@Attribute` option SwiftData offers, on one model.
@Model
final class Gadget {
    @Attribute(.unique, .spotlight) var serial: String
    @Attribute(.preserveValueOnDeletion) var owner: String
    @Attribute(.allowsCloudEncryption) var secret: String
    @Attribute(.ephemeral) var lastSeen: Date?
    @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
    @Attribute(.transformable(by: "ColorTransformer")) var accent: Color?
    @Attribute(originalName: "title") var name: String
    @Attribute(.externalStorage, originalName: "image") var photo: Data?
    @Attribute(.codable) var settings = GadgetSettings(mode: .eco, levels: [])

    init(serial: String, owner: String, secret: String, color: Color, name: String) {
        self.serial = serial
        self.owner = owner
        self.secret = secret
        self.color = color
        self.name = name
    }
}

/// A model with a compound uniqueness constraint and a second, optional one.
@Model
final class Badge {
    #Unique<Badge>([\.team, \.number], [\.code])
    var team: String
    var number: Int
    var code: String?
    var holder: String

    init(team: String, number: Int, code: String? = nil, holder: String) {
        self.team = team
        self.number = number
        self.code = code
        self.holder = holder
    }
}
