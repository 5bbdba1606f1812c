// The README's demo: a store file, inserts, queries, an update, a delete, an undo, and a reopen.
import OpenSwiftData

@Model
final class Trip {
    var name: String
    var destination: String
    var startDate: Date
    var rating: Int = 0
    var isFavorite: Bool = false
    var notes: String?
    @Transient var isExpanded = false
    @Relationship(deleteRule: .cascade, inverse: \Activity.trip)
    var activities: [Activity] = []

    init(name: String, destination: String, startDate: Date, rating: Int = 0) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.rating = rating
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

func run() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("OpenSwiftDataDemo-\(UUID().uuidString)")
    let url = folder.appendingPathComponent("Trips.store")
    defer { try? FileManager.default.removeItem(at: folder) }
    print("Store: \(url.path)")

    do {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let trips = [
            Trip(name: "Summer in Paris", destination: "Paris", startDate: start, rating: 5),
            Trip(name: "Été à Nice", destination: "Nice", startDate: start.addingTimeInterval(86_400 * 30), rating: 4),
            Trip(name: "Winter hike", destination: "Alps", startDate: start.addingTimeInterval(86_400 * 180), rating: 2),
        ]
        for trip in trips { context.insert(trip) }
        trips[0].isFavorite = true
        try context.save()
        print("Inserted \(trips.count) trips; the first one's identifier is \(trips[0].persistentModelID.id)")

        let good = #Predicate<Trip> { $0.rating >= 4 }
        let byDate = FetchDescriptor(predicate: good, sortBy: [SortDescriptor(\.startDate, order: .reverse)])
        print("Rated 4 or more, latest first: \(try context.fetch(byDate).map(\.name))")

        let text = "ete"
        let matching = try context.fetch(FetchDescriptor(predicate: #Predicate<Trip> { $0.name.localizedStandardContains(text) }))
        print("Names containing \"ete\" (ignoring case and accents): \(matching.map(\.name))")

        trips[2].rating = 3
        trips[2].notes = "Bring crampons"
        try context.save()
        print("Updated \(trips[2].name): rating \(trips[2].rating), notes \(trips[2].notes ?? "-")")

        trips[0].activities.append(Activity(title: "Louvre", cost: 22))
        trips[0].activities.append(Activity(title: "Seine cruise", cost: 15))
        trips[1].activities.append(Activity(title: "Promenade", cost: 0))
        try context.save()
        let pricey = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { trip in trip.activities.contains { $0.cost > 20 } }))
        print("Trips with an activity over 20: \(pricey.map(\.name)); the Louvre's trip is \(trips[0].activities[0].trip?.name ?? "-")")
        let spent = try context.sum(of: \Activity.cost)
        let latest = try context.maximum(of: \Trip.startDate)
        let typical = try context.average(of: \Activity.cost)
        print("Beyond SwiftData, aggregates: activities cost \(spent) in all, \(typical.map { "\($0)" } ?? "-") on average; the latest trip starts \(latest.map { "\($0)" } ?? "-")")
        let free = try context.update(model: Activity.self, where: #Predicate { $0.cost == 0 }, set: \.cost, to: 5)
        print("And batch updates: \(free) free activity now costs \(trips[1].activities[0].cost), set in the store without loading models")
        // A filter assembled at run time from parts, as a search screen would.
        var filter = #Predicate<Activity> { $0.cost < 20 }
        for word in ["Seine"] { filter = filter && #Predicate<Activity> { $0.title.contains(word) } }
        let chosen = try context.fetch(FetchDescriptor(predicate: filter || #Predicate { $0.title == "Louvre" }))
        print("And predicates combined at run time (cost < 20 && title contains \"Seine\", or the Louvre): \(chosen.map(\.title).sorted())")

        context.delete(trips[1])
        try context.save()
        print("Deleted one trip and, by its cascade rule, its activities; \(try context.fetchCount(FetchDescriptor<Trip>())) trips and \(try context.fetchCount(FetchDescriptor<Activity>())) activities remain")

        let undoManager = UndoManager()
        context.undoManager = undoManager
        trips[2].rating = 1
        undoManager.undo()
        print("Changed \(trips[2].name)'s rating to 1 and undid it: rating \(trips[2].rating), unsaved changes: \(context.hasChanges)")
    }

    let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(reopened)
    var everything = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
    everything.relationshipKeyPathsForPrefetching = [\.activities]
    let all = try context.fetch(everything)
    print("Reopened the store and found:")
    for trip in all {
        let activities = trip.activities.map(\.title).joined(separator: ", ")
        print("  \(trip.name) → \(trip.destination), rating \(trip.rating), favorite \(trip.isFavorite), notes \(trip.notes ?? "-"), activities: \(activities.isEmpty ? "-" : activities)")
    }
}

do {
    try run()
} catch {
    print("Demo failed: \(error)")
    exit(1)
}
