import Foundation
import Testing
import OpenSwiftData

@Model final class Club {
    #Index<Club>([\.members])
    var name: String
    @Relationship(inverse: \Membership.club) var members: [Membership] = []
    init(name: String) { self.name = name }
}

@Model final class Membership {
    #Unique<Membership>([\.member, \.club])
    var member: String
    var club: Club?
    init(member: String) { self.member = member }
}

@Model final class Guild {
    var name: String
    @Relationship(inverse: \Guildsman.guild) var members: [Guildsman] = []
    init(name: String) { self.name = name }
}

@Model final class Guildsman {
    #Unique<Guildsman>([\.name, \.guild])
    var name: String
    var guild: Guild?
    init(name: String) { self.name = name }
}

@Model final class Sticker {
    #Unique<Sticker>([\.label, \.isShown])
    var label: String
    @Transient var isShown = false
    init(label: String) { self.label = label }
}

@Model final class Seat {
    #Index<Seat>([\.hall], [\.row, \.number])
    var row: Int
    var number: Int
    var hall: Hall?
    init(row: Int, number: Int) { self.row = row; self.number = number }
}

@Model final class Hall {
    var name: String
    @Relationship(inverse: \Seat.hall) var seats: [Seat] = []
    init(name: String) { self.name = name }
}

/// `#Unique` and `#Index` name stored properties: a key path the store cannot hold is refused when
/// the container opens, naming the model and property, never left out in silence or failing later
/// in SQL. A to-one relationship is a column, and may be named.
@Suite struct ConstraintDeclarationTests {
    static let builtInStores = Backend.allCases.filter { $0 != .dataStore }

    private func refusal(_ types: [any PersistentModel.Type], backend: Backend) -> SwiftDataError? {
        let store = TemporaryStore()
        let error = #expect(throws: SwiftDataError.loadIssueModelContainer) {
            _ = try ModelContainer(for: Schema(types), configurations: [backend.configuration(url: store.url)])
        }
        if backend == .sqlite { #expect(!FileManager.default.fileExists(atPath: store.url.path), "nothing is created") }
        return error
    }

    /// An insert whose attribute and to-one relationship match a stored row updates that row.
    @Test(arguments: builtInStores) func aToOneRelationshipInAUniquenessConstraintMatchesTheRelatedModel(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Guildsman.self, Guild.self, backend: backend))
        let masons = Guild(name: "Masons")
        context.insert(masons)
        try context.save()
        let first = Guildsman(name: "Ann")
        first.guild = masons
        context.insert(first)
        try context.save()
        let again = Guildsman(name: "Ann")
        again.guild = masons
        context.insert(again)
        let elsewhere = Guildsman(name: "Ann")
        context.insert(elsewhere)
        try context.save()
        let stored = try ModelContext(try store.container(Guildsman.self, Guild.self, backend: backend)).fetch(FetchDescriptor<Guildsman>())
        #expect(stored.count == 2, "Ann of the Masons once, and Ann of no guild")
        #expect(stored.filter { $0.guild?.name == "Masons" }.count == 1)
    }

    /// Inserts matching on a related model that is new in the same save are one row, as inserts
    /// matching on attributes are, whichever was inserted into the context first.
    @Test(arguments: builtInStores) func insertsOfOneSaveMatchingOnANewRelatedModelAreOneRow(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Guildsman.self, Guild.self, backend: backend))
        let first = Guildsman(name: "Ann")
        context.insert(first)
        let masons = Guild(name: "Masons")
        context.insert(masons)
        first.guild = masons
        let again = Guildsman(name: "Ann")
        again.guild = masons
        context.insert(again)
        let other = Guildsman(name: "Bob")
        other.guild = masons
        context.insert(other)
        try context.save()
        let stored = try ModelContext(try store.container(Guildsman.self, Guild.self, backend: backend)).fetch(FetchDescriptor<Guildsman>())
        #expect(stored.map(\.name).sorted() == ["Ann", "Bob"])
        #expect(stored.allSatisfy { $0.guild?.name == "Masons" })
        #expect(first.persistentModelID == again.persistentModelID, "the second Ann updated the first")
        let ann = try #require(stored.first { $0.name == "Ann" })
        #expect(ann.persistentModelID == first.persistentModelID)
    }

    @Test(arguments: builtInStores) func aTransientPropertyInAUniquenessConstraintIsRefused(_ backend: Backend) throws {
        let error = refusal([Sticker.self], backend: backend)
        #expect(error?.reason?.contains("#Unique<Sticker> names") == true, "\(String(describing: error))")
        #expect(error?.reason?.contains("not a stored property of Sticker") == true, "\(String(describing: error))")
    }

    @Test(arguments: builtInStores) func aToManyRelationshipInAnIndexIsRefused(_ backend: Backend) throws {
        let error = refusal([Club.self, Membership.self], backend: backend)
        #expect(error?.reason?.contains("#Index<Club> names Club.members, a to-many relationship") == true, "\(String(describing: error))")
    }

    /// A to-one relationship is a column: an index on it is kept, and the store reopens.
    @Test(arguments: builtInStores) func aToOneRelationshipInAnIndexIsKept(_ backend: Backend) throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try ModelContainer(for: Schema([Seat.self, Hall.self]), configurations: [backend.configuration(url: store.url)]))
            let hall = Hall(name: "Main")
            context.insert(hall)
            let seat = Seat(row: 3, number: 7)
            seat.hall = hall
            context.insert(seat)
            try context.save()
        }
        let container = try ModelContainer(for: Schema([Seat.self, Hall.self]), configurations: [backend.configuration(url: store.url)])
        #expect(container.schema.entity(for: Seat.self)?.indices == [["hall"], ["row", "number"]])
        #expect(try ModelContext(container).fetch(FetchDescriptor<Seat>()).first?.hall?.name == "Main")
    }
}
