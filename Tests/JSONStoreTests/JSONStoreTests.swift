import Foundation
import JSONStore
import OpenSwiftData
import Testing

@Model
final class Trip {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?
    @Relationship(deleteRule: .cascade, inverse: \Activity.trip)
    var activities: [Activity] = []

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model
final class LivingAccommodation {
    var address: String
    var placeName: String
    var trip: Trip?

    init(address: String, placeName: String) {
        self.address = address
        self.placeName = placeName
    }
}

@Model
final class Activity {
    var title: String
    var cost: Double
    var trip: Trip?

    init(title: String, cost: Double) {
        self.title = title
        self.cost = cost
    }
}

/// The archival JSON store of Apple's custom-store sample, run through the SwiftData API: every
/// container is a fresh open of the file, in a folder removed when the test ends.
@Suite final class JSONStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jsonstore-\(UUID().uuidString)")
    var fileURL: URL { folder.appendingPathComponent("trips.json") }
    let schema = Schema([Trip.self, LivingAccommodation.self, Activity.self])

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func container() throws -> ModelContainer {
        try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(name: "Trips", schema: schema, fileURL: fileURL)])
    }

    func day(_ number: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(number) * 86_400 + 0.25) }

    func seed() throws {
        let context = ModelContext(try container())
        for (number, (name, destination)) in [("Paris", "France"), ("Kyoto", "Japan"), ("Lima", "Peru"), ("Oslo", "Norway")].enumerated() {
            let trip = Trip(name: name, destination: destination, startDate: day(number * 10), endDate: day(number * 10 + 5))
            context.insert(trip)
            trip.livingAccommodation = LivingAccommodation(address: "\(number) Main St", placeName: "Inn \(name)")
            trip.activities = (0..<number).map { Activity(title: "\(name) \($0)", cost: Double($0) * 10.5) }
        }
        try context.save()
    }

    @Test func insertedModelsAreInTheFileAfterReopening() throws {
        try seed()
        #expect(FileManager.default.fileExists(atPath: fileURL.path))
        let trips = try ModelContext(try container()).fetch(FetchDescriptor<Trip>())
        #expect(Set(trips.map(\.name)) == ["Paris", "Kyoto", "Lima", "Oslo"])
        let paris = try #require(trips.first { $0.name == "Paris" })
        #expect(paris.startDate == day(0))
        #expect(paris.endDate == day(5))
        #expect(paris.destination == "France")
    }

    @Test func fetchesWithPredicatesSortsAndPagesMatchSwift() throws {
        try seed()
        let context = ModelContext(try container())
        let after = day(15)
        let later = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate > after }, sortBy: [SortDescriptor(\.name)]))
        #expect(later.map(\.name) == ["Lima", "Oslo"])
        var page = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
        page.fetchOffset = 1
        page.fetchLimit = 2
        #expect(try context.fetch(page).map(\.name) == ["Lima", "Kyoto"])
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination.contains("a") })) == 3)
        let expensive = try context.fetch(FetchDescriptor<Activity>(predicate: #Predicate { $0.cost > 10 && $0.trip?.name == "Oslo" }))
        #expect(Set(expensive.map(\.title)) == ["Oslo 1", "Oslo 2"])
    }

    @Test func updatesAreSavedAndReadBack() throws {
        try seed()
        do {
            let context = ModelContext(try container())
            let kyoto = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Kyoto" })).first)
            kyoto.destination = "Japan (Kansai)"
            kyoto.livingAccommodation?.placeName = "Ryokan"
            try context.save()
        }
        let context = ModelContext(try container())
        let kyoto = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Kyoto" })).first)
        #expect(kyoto.destination == "Japan (Kansai)")
        #expect(kyoto.livingAccommodation?.placeName == "Ryokan")
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 4)
    }

    @Test func relationshipsAndCascadesSurviveReopening() throws {
        try seed()
        do {
            let context = ModelContext(try container())
            let lima = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lima" })).first)
            #expect(lima.livingAccommodation?.address == "2 Main St")
            #expect(lima.livingAccommodation?.trip === lima)
            #expect(Set(lima.activities.map(\.title)) == ["Lima 0", "Lima 1"])
            context.delete(lima)
            try context.save()
        }
        let context = ModelContext(try container())
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
        #expect(try context.fetchCount(FetchDescriptor<LivingAccommodation>()) == 3)
        #expect(try context.fetch(FetchDescriptor<Activity>()).allSatisfy { $0.trip?.name != "Lima" && $0.trip != nil })
        #expect(try context.fetchCount(FetchDescriptor<Activity>()) == 4)
    }

    @Test func identifiersAreStableAcrossReopeningAndCoding() throws {
        try seed()
        let first = try ModelContext(try container()).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Oslo" }))
        let id = try #require(first.first?.persistentModelID)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
        let context = ModelContext(try container())
        let oslo = try #require(context.model(for: decoded) as? Trip)
        #expect(oslo.name == "Oslo")
        #expect(oslo.activities.count == 3)
    }

    @Test func deletingEverythingLeavesAnEmptyStore() throws {
        try seed()
        let container = try container()
        try container.erase()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0)
        try seed()
        #expect(try ModelContext(try self.container()).fetchCount(FetchDescriptor<Activity>()) == 6)
        let context = ModelContext(try self.container())
        try context.delete(model: Trip.self)
        try context.save()
        #expect(try ModelContext(try self.container()).fetchCount(FetchDescriptor<Activity>()) == 0)
    }
}
