import Foundation
import Testing
@testable import OpenSwiftData

/// Delete rules, on files, checked again after reopening: `.cascade` through chains, `.nullify`
/// (the default), `.deny` refusing the save with nothing changed, `.noAction`, and no stored
/// reference to a deleted row whatever the rule.
struct DeleteRuleTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer { try store.graphContainer() }

    @Test func cascadeDeletesThroughChains() throws {
        let context = ModelContext(try container())
        let root = Folder(name: "root")
        context.insert(root)
        var parent = root
        for depth in 1...5 {
            let child = Folder(name: "level \(depth)", parent: parent)
            _ = Folder(name: "leaf \(depth)", parent: parent)
            parent = child
        }
        let other = Folder(name: "other")
        context.insert(other)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Folder>()) == 12)

        let reopened = ModelContext(try container())
        let stored = try reopened.fetch(FetchDescriptor<Folder>(predicate: #Predicate { $0.name == "root" }))
        reopened.delete(stored[0])
        try reopened.save()
        #expect(try reopened.fetch(FetchDescriptor<Folder>()).map(\.name) == ["other"])

        let third = ModelContext(try container())
        #expect(try third.fetch(FetchDescriptor<Folder>()).map(\.name) == ["other"])
    }

    @Test func cascadeOnAOneWayToManyAndCleanupOfLinkRows() throws {
        let context = ModelContext(try container())
        let memo = Memo(text: "m")
        memo.attachments = [Attachment(fileName: "a"), Attachment(fileName: "b")]
        let keep = Memo(text: "keep")
        context.insert(memo)
        context.insert(keep)
        try context.save()
        context.delete(memo)
        try context.save()

        let reopened = ModelContext(try container())
        #expect(try reopened.fetchCount(FetchDescriptor<Attachment>()) == 0)
        #expect(try reopened.fetch(FetchDescriptor<Memo>()).map(\.text) == ["keep"])
        #expect(try linkRows("osd_link_Memo_attachments") == 0)
    }

    @Test func nullifyRemovesTheDeletedModelFromItsInverse() throws {
        let context = ModelContext(try container())
        let journey = Journey(name: "J")
        context.insert(journey)
        let first = Outing(title: "first", journey: journey)
        _ = Outing(title: "second", journey: journey)
        let label = Label(name: "L")
        first.labels = [label]
        journey.lodging = Lodging(name: "Inn")
        try context.save()

        context.delete(first)
        try context.save()
        #expect(journey.outings.map(\.title) == ["second"])
        #expect(label.outings.isEmpty)

        let lodging = try #require(journey.lodging)
        context.delete(lodging)
        try context.save()
        #expect(journey.lodging == nil)

        let reopened = ModelContext(try container())
        let journeys = try reopened.fetch(FetchDescriptor<Journey>())
        #expect(journeys.first?.outings.map(\.title) == ["second"])
        #expect(journeys.first?.lodging == nil)
        #expect(try reopened.fetch(FetchDescriptor<Label>()).first?.outings.isEmpty == true)
        #expect(try linkRows("osd_link_Label_outings") == 0)
    }

    @Test func cascadeDeletesChildrenButNullifiesTheirOtherRelationships() throws {
        let context = ModelContext(try container())
        let journey = Journey(name: "J")
        context.insert(journey)
        let outing = Outing(title: "O", journey: journey)
        let label = Label(name: "shared")
        outing.labels = [label]
        try context.save()
        context.delete(journey)
        try context.save()
        #expect(label.outings.isEmpty)

        let reopened = ModelContext(try container())
        #expect(try reopened.fetchCount(FetchDescriptor<Outing>()) == 0)
        #expect(try reopened.fetch(FetchDescriptor<Label>()).map(\.name) == ["shared"])
    }

    @Test func denyRefusesTheSaveAndChangesNothing() throws {
        let context = ModelContext(try container())
        let writer = Writer(name: "Le Guin")
        context.insert(writer)
        let book = Book(title: "The Dispossessed", writer: writer)
        try context.save()
        let before = store.snapshot()

        context.delete(writer)
        #expect {
            try context.save()
        } throws: { error in
            "\(error)".contains("Writer.books") && "\(error)".contains(".deny")
        }
        #expect(store.snapshot() == before, "nothing was written")
        #expect(book.writer === writer)

        // The context stays usable: remove what the rule protects, then the delete saves.
        context.delete(book)
        try context.save()
        let reopened = ModelContext(try container())
        #expect(try reopened.fetchCount(FetchDescriptor<Writer>()) == 0)
        #expect(try reopened.fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test func denyAllowsDeletingAModelWithoutRelatedModels() throws {
        let context = ModelContext(try container())
        let writer = Writer(name: "Unpublished")
        context.insert(writer)
        try context.save()
        context.delete(writer)
        try context.save()
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<Writer>()) == 0)
    }

    @Test func aOneWayReferenceToADeletedModelReadsBackAsNil() throws {
        // `Memo.pinned` has no inverse: deleting the attachment leaves no stored reference.
        let context = ModelContext(try container())
        let memo = Memo(text: "m")
        let attachment = Attachment(fileName: "a")
        memo.pinned = attachment
        context.insert(memo)
        try context.save()

        let other = ModelContext(try container())
        let stored = try other.fetch(FetchDescriptor<Attachment>())
        other.delete(stored[0])
        try other.save()

        let reopened = ModelContext(try container())
        #expect(try reopened.fetch(FetchDescriptor<Memo>()).first?.pinned == nil)
        context.delete(attachment)
        try context.save()
        #expect(memo.pinned == nil)
    }

    @Test func deletingByPredicateAppliesTheRulesToo() throws {
        let context = ModelContext(try container())
        for name in ["a", "b"] {
            let journey = Journey(name: name)
            context.insert(journey)
            _ = Outing(title: "\(name)-outing", journey: journey)
        }
        try context.save()
        // A fresh context has none of the models loaded: the rules still apply.
        let other = ModelContext(try container())
        try other.delete(model: Journey.self, where: #Predicate { $0.name == "a" })
        try other.save()

        let reopened = ModelContext(try container())
        #expect(try reopened.fetch(FetchDescriptor<Outing>()).map(\.title) == ["b-outing"])
    }

    @Test func deletingAnUnsavedModelUnlinksIt() throws {
        let context = ModelContext(try container())
        let journey = Journey(name: "J")
        context.insert(journey)
        let outing = Outing(title: "draft", journey: journey)
        context.delete(outing)
        #expect(journey.outings.isEmpty)
        try context.save()
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<Outing>()) == 0)
    }

    /// The number of rows of a link table, read with SQLite directly.
    private func linkRows(_ table: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: store.url.path, readOnly: true, create: false)
        return try connection.integer("SELECT count(*) FROM \"\(table)\"") ?? -1
    }
}

/// `minimumModelCount` and `maximumModelCount` are checked when a save writes the relationship.
struct RelationshipCountTests {
    @Test func aSaveBeyondTheMaximumThrowsAndTheContextStaysUsable() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.graphContainer())
        let memo = Memo(text: "full")
        context.insert(memo)
        memo.attachments = (1...4).map { Attachment(fileName: "\($0)") }
        #expect {
            try context.save()
        } throws: { error in
            "\(error)".contains("Memo.attachments") && "\(error)".contains("4 models")
        }
        memo.attachments.removeLast()
        try context.save()
        let reopened = ModelContext(try store.graphContainer())
        #expect(try reopened.fetch(FetchDescriptor<Memo>()).first?.attachments.count == 3)
    }
}
