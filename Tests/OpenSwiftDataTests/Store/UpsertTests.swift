import Foundation
import Testing
import OpenSwiftData

/// `@Attribute(.unique)` and `#Unique`: inserting a model whose unique values match a stored row
/// updates that row, as SwiftData does.
@Suite struct UpsertTests {
    private func people(in store: TemporaryStore) throws -> [Person] {
        let context = ModelContext(try store.container(Person.self))
        return try context.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.email)]))
    }

    @Test func aDuplicateInTheSameSaveUpdatesTheFirst() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Person.self))
        context.insert(Person(email: "ada@example.com", givenName: "Ada", familyName: "Byron"))
        context.insert(Person(email: "ada@example.com", givenName: "Ada", familyName: "Lovelace"))
        try context.save()
        let stored = try people(in: store)
        #expect(stored.map(\.familyName) == ["Lovelace"])
    }

    @Test func aLaterInsertUpdatesTheStoredRowAndKeepsItsIdentity() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Person.self))
        let first = Person(email: "ada@example.com", givenName: "Ada", familyName: "Byron")
        context.insert(first)
        try context.save()
        let second = Person(email: "ada@example.com", givenName: "Augusta", familyName: "Lovelace")
        second.age = 36
        context.insert(second)
        try context.save()

        #expect(second.persistentModelID == first.persistentModelID)
        #expect(try context.fetchCount(FetchDescriptor<Person>()) == 1)
        #expect(try context.fetch(FetchDescriptor<Person>()).first === second, "the context holds one object for the row")
        #expect(first.familyName == "Lovelace", "the object registered before shows the saved values")
        let stored = try people(in: store)
        #expect(stored.map(\.givenName) == ["Augusta"])
        #expect(stored.map(\.age) == [36])
    }

    @Test func anInsertInAnotherContextUpdatesTheRowAfterReopening() throws {
        let store = TemporaryStore()
        let container = try store.container(Person.self)
        let mine = ModelContext(container)
        let original = Person(email: "grace@example.com", givenName: "Grace", familyName: "Murray")
        mine.insert(original)
        try mine.save()

        let theirs = ModelContext(container)
        let replacement = Person(email: "grace@example.com", givenName: "Grace", familyName: "Hopper")
        theirs.insert(replacement)
        try theirs.save()
        #expect(replacement.persistentModelID == original.persistentModelID)

        let stored = try people(in: store)
        #expect(stored.count == 1)
        #expect(stored.first?.familyName == "Hopper")
        mine.processPendingChanges()
        #expect(original.familyName == "Hopper")
    }

    @Test func compoundConstraintsMatchOnAllTheirProperties() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Badge.self))
        context.insert(Badge(team: "red", number: 7, holder: "Ann"))
        context.insert(Badge(team: "red", number: 8, holder: "Bob"))
        context.insert(Badge(team: "blue", number: 7, holder: "Cy"))
        try context.save()
        context.insert(Badge(team: "red", number: 7, holder: "Dee"))
        try context.save()

        let reopened = ModelContext(try store.container(Badge.self))
        let badges = try reopened.fetch(FetchDescriptor<Badge>(sortBy: [SortDescriptor(\.team), SortDescriptor(\.number)]))
        #expect(badges.map(\.holder) == ["Cy", "Dee", "Bob"])
    }

    @Test func nilUniqueValuesNeverMatch() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Badge.self))
        context.insert(Badge(team: "red", number: 1, code: nil, holder: "Ann"))
        context.insert(Badge(team: "red", number: 2, code: nil, holder: "Bob"))
        try context.save()
        #expect(try ModelContext(try store.container(Badge.self)).fetchCount(FetchDescriptor<Badge>()) == 2)
    }

    @Test func matchingTwoDifferentRowsIsAConflictThatChangesNothing() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Badge.self))
        context.insert(Badge(team: "red", number: 1, code: "A", holder: "Ann"))
        context.insert(Badge(team: "red", number: 2, code: "B", holder: "Bob"))
        try context.save()

        // (red, 1) names Ann's row and code "B" names Bob's: one insert cannot update both.
        let ambiguous = Badge(team: "red", number: 1, code: "B", holder: "Eve")
        context.insert(ambiguous)
        context.insert(Badge(team: "green", number: 1, holder: "Fay"))
        let error = #expect(throws: SwiftDataError.uniquenessConflict) { try context.save() }
        #expect(error?.reason?.contains("Badge") == true)
        #expect(context.insertedModelsArray.count == 2, "the context keeps its changes")
        let unchanged = try ModelContext(try store.container(Badge.self)).fetch(FetchDescriptor<Badge>(sortBy: [SortDescriptor(\.number)]))
        #expect(unchanged.map(\.holder) == ["Ann", "Bob"])

        ambiguous.code = "C"
        try context.save()
        let after = try ModelContext(try store.container(Badge.self)).fetch(FetchDescriptor<Badge>(sortBy: [SortDescriptor(\.holder)]))
        #expect(after.map(\.holder) == ["Bob", "Eve", "Fay"])
    }
}

extension UpsertTests {
    /// Unique text values match as Swift's `==` matches strings: canonically equivalent ones are
    /// the same value ("é" precomposed and "e" with a combining accent), on every store.
    @Test func canonicallyEquivalentUniqueTextIsTheSameValue() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Person.self))
        context.insert(Person(email: "caf\u{E9}@example.com", givenName: "Ada", familyName: "Byron"))
        try context.save()
        let second = ModelContext(try store.container(Person.self))
        second.insert(Person(email: "cafe\u{301}@example.com", givenName: "Ada", familyName: "Lovelace"))
        try second.save()
        let stored = try people(in: store)
        #expect(stored.map(\.familyName) == ["Lovelace"])
        let email = "cafe\u{301}@example.com"
        #expect(try ModelContext(try store.container(Person.self)).fetchCount(FetchDescriptor<Person>(predicate: #Predicate { $0.email == email })) == 1)
    }
}
