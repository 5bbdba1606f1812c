import Hummingbird

/// A trip as the routes send and receive it.
struct TripDTO: ResponseCodable, Sendable {
    var code: String
    var name: String
    var rating: Int
}

/// Up to fifty trips, best first.
struct TripList: ResponseCodable, Sendable {
    var trips: [TripDTO]
}

/// What each server does behind the same routes: one implementation per contender.
protocol TripService: Sendable {
    /// Trips rated `minimum` or more, best first, at most 50.
    func best(minimum: Int) async throws -> [TripDTO]
    /// The trip with this code, if any.
    func trip(code: String) async throws -> TripDTO?
    /// Inserts the trip, or updates the trip with its code.
    func upsert(_ trip: TripDTO) async throws
}

/// The seeded data, the same for every contender: codes `T000001` …, ratings 0–99.
enum TripSeed {
    static func code(_ number: Int) -> String {
        let digits = String(number)
        return "T" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    static func trip(_ number: Int) -> TripDTO {
        TripDTO(code: code(number), name: "Trip \(number)", rating: number % 100)
    }
}
