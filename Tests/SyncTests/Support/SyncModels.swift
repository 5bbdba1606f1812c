import Foundation
import OpenSwiftData

/// A value of the app's own, stored as JSON.
struct Budget: Codable, Hashable {
    var currency: String
    var limits: [Int]
}

@Model
final class Trip {
    @Attribute(.unique) var code: String
    var name: String
    var price: Double
    var start: Date
    var notes: String?
    var cost: Decimal = 0
    var token: UUID = UUID()
    var photo: Data?
    var budget: Budget?
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    @Relationship(inverse: \Tag.trips) var tags: [Tag] = []

    init(code: String, name: String, price: Double = 0, start: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        self.code = code
        self.name = name
        self.price = price
        self.start = start
    }
}

@Model
final class Stop {
    var place: String
    var order: Int
    var trip: Trip?

    init(place: String, order: Int) {
        self.place = place
        self.order = order
    }
}

@Model
final class Tag {
    var label: String
    var trips: [Trip] = []

    init(label: String) {
        self.label = label
    }
}

/// A model with a subclass, bytes kept beside the store, and a to-one relationship without an
/// inverse.
@Model
class Vehicle {
    var plate: String
    @Attribute(.externalStorage) var manual: Data?
    var trip: Trip?

    init(plate: String) {
        self.plate = plate
    }
}

@Model
final class Bus: Vehicle {
    var seats: Int = 0

    init(plate: String, seats: Int) {
        self.seats = seats
        super.init(plate: plate)
    }
}

/// The models every sync test uses.
let syncModels: [any PersistentModel.Type] = [Trip.self, Stop.self, Tag.self, Vehicle.self, Bus.self]
