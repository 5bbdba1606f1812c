import Foundation
import OpenSwiftData

/// The models the tool tests write stores with: every attribute type, each relationship storage
/// (a foreign key, the inverse's key, a link table), delete rules, a compound uniqueness constraint.
@Model
final class Voyage {
    #Unique<Voyage>([\.name, \.start])
    #Index<Voyage>([\.rating])

    var name: String
    var start: Date
    var rating: Int
    var score: Double
    var budget: Decimal?
    var code: UUID
    var notes: String?
    var tags: [String]
    var isDone: Bool
    var photo: Data?
    var distance: UInt64 = 0
    var site: URL?
    @Relationship(deleteRule: .cascade, inverse: \Stop.voyage) var stops: [Stop] = []
    var captain: Sailor?
    var flags: [Flag] = []

    init(name: String, start: Date, rating: Int, score: Double, budget: Decimal? = nil, code: UUID = UUID(), notes: String? = nil, tags: [String] = [], isDone: Bool = false) {
        self.name = name
        self.start = start
        self.rating = rating
        self.score = score
        self.budget = budget
        self.code = code
        self.notes = notes
        self.tags = tags
        self.isDone = isDone
    }
}

@Model
final class Stop {
    var title: String
    var voyage: Voyage?

    init(title: String) { self.title = title }
}

@Model
final class Sailor {
    @Attribute(.unique) var email: String
    @Relationship(inverse: \Voyage.captain) var voyages: [Voyage] = []

    init(email: String) { self.email = email }
}

@Model
final class Flag {
    var name: String
    @Relationship(inverse: \Voyage.flags) var voyages: [Voyage] = []

    init(name: String) { self.name = name }
}

enum ToolFixtures {
    static var models: [any PersistentModel.Type] { [Voyage.self, Stop.self, Sailor.self, Flag.self] }

    /// Saves a port with three vessels and three ships, each ship with a crew member who has a
    /// skill: a class hierarchy (`Ship` inherits from `Vessel`) and its relationships.
    static func saveFleet(in context: ModelContext) throws {
        let port = Port(code: "OSL", country: "NO")
        context.insert(port)
        for index in 0..<3 {
            let vessel = Vessel(name: "vessel \(index)")
            let ship = Ship(name: "ship \(index)", tonnage: Double(index))
            context.insert(vessel)
            context.insert(ship)
            vessel.homePort = port
            ship.homePort = port
            let member = CrewMember(fullName: "crew \(index)")
            ship.crew.append(member)
            member.skills.append(Skill(title: "skill \(index)"))
        }
        try context.save()
    }

    /// A store at `path` with a few voyages, their stops, captains and flags.
    @discardableResult
    static func makeStore(at path: String) throws -> ModelContainer {
        try makeStore(ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    /// The store of `configuration`, with a few voyages, their stops, captains and flags.
    @discardableResult
    static func makeStore(_ configuration: any DataStoreConfiguration) throws -> ModelContainer {
        let container = try ModelContainer(for: Schema(models), configurations: [configuration])
        let context = ModelContext(container)
        let ann = Sailor(email: "ann@example.com")
        let bo = Sailor(email: "bo@example.com")
        let red = Flag(name: "red")
        let blue = Flag(name: "blue")
        let names = ["Paris in spring", "Café tour", "Oslo", "Paris again", "Zürich"]
        for (index, name) in names.enumerated() {
            let voyage = Voyage(
                name: name, start: Date(timeIntervalSinceReferenceDate: 800_000_000.125 + Double(index) * 86_400),
                rating: index + 1, score: index == 2 ? .nan : Double(index) * 1.5, budget: index.isMultiple(of: 2) ? Decimal(string: "1234.56") : nil,
                notes: index == 1 ? nil : "note \(index)", tags: ["t\(index)"], isDone: index.isMultiple(of: 2))
            context.insert(voyage)
            voyage.captain = index < 3 ? ann : (index == 3 ? bo : nil)
            voyage.flags = index == 0 ? [red, blue] : (index == 1 ? [red] : [])
            for stop in 0..<index { voyage.stops.append(Stop(title: "\(name) stop \(stop)")) }
        }
        try context.save()
        return container
    }
}
