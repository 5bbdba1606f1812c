import Foundation
import Testing
@testable import OpenSwiftData

/// Delete rules, on files, checked again after reopening: `.cascade` through chains, `.nullify`
/// (the default), `.deny` refusing the save with nothing changed, `.noAction`, and no stored
/// reference to a deleted row whatever the rule.
struct DeleteRuleTests {
    let store = TemporaryStore()

    func container(_ backend: Backend = .sqlite) throws -> ModelContainer { try store.graphContainer(backend) }

    /// A model deleted before it was ever saved leaves the one-way relationships that held it at
    /// once (no delete rule covers them, and the store never held those references): memory and
    /// store agree after the save.
    @Test(arguments: Backend.allCases)
    func aNewModelDeletedBeforeItsSaveLeavesOneWayRelationships(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let memo = Memo(text: "Plan")
        let kept = Attachment(fileName: "kept.pdf")
        memo.attachments = [kept]
        context.insert(memo)
        try context.save()
        let draft = Attachment(fileName: "draft.pdf")
        memo.attachments.append(draft)
        memo.pinned = draft
        context.delete(draft)
        #expect(memo.attachments.map(\.fileName) == ["kept.pdf"] && memo.pinned == nil)
        try context.save()
        let stored = try #require(try ModelContext(try container(backend)).fetch(FetchDescriptor<Memo>()).first)
        #expect(stored.attachments.map(\.fileName) == ["kept.pdf"] && stored.pinned == nil)
    }

    @Test(arguments: Backend.allCases) func cascadeDeletesThroughChains(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
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

        let reopened = ModelContext(try container(backend))
        let stored = try reopened.fetch(FetchDescriptor<Folder>(predicate: #Predicate { $0.name == "root" }))
        reopened.delete(stored[0])
        try reopened.save()
        #expect(try reopened.fetch(FetchDescriptor<Folder>()).map(\.name) == ["other"])

        let third = ModelContext(try container(backend))
        #expect(try third.fetch(FetchDescriptor<Folder>()).map(\.name) == ["other"])
    }

    @Test(arguments: Backend.allCases) func cascadeOnAOneWayToManyAndCleanupOfLinkRows(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let memo = Memo(text: "m")
        memo.attachments = [Attachment(fileName: "a"), Attachment(fileName: "b")]
        let keep = Memo(text: "keep")
        context.insert(memo)
        context.insert(keep)
        try context.save()
        context.delete(memo)
        try context.save()

        let reopened = ModelContext(try container(backend))
        #expect(try reopened.fetchCount(FetchDescriptor<Attachment>()) == 0)
        #expect(try reopened.fetch(FetchDescriptor<Memo>()).map(\.text) == ["keep"])
        if backend == .sqlite { #expect(try linkRows("osd_link_Memo_attachments") == 0) }
    }

    @Test(arguments: Backend.allCases) func nullifyRemovesTheDeletedModelFromItsInverse(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
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

        let reopened = ModelContext(try container(backend))
        let journeys = try reopened.fetch(FetchDescriptor<Journey>())
        #expect(journeys.first?.outings.map(\.title) == ["second"])
        #expect(journeys.first?.lodging == nil)
        #expect(try reopened.fetch(FetchDescriptor<Label>()).first?.outings.isEmpty == true)
        if backend == .sqlite { #expect(try linkRows("osd_link_Label_outings") == 0) }
    }

    @Test(arguments: Backend.allCases) func cascadeDeletesChildrenButNullifiesTheirOtherRelationships(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let journey = Journey(name: "J")
        context.insert(journey)
        let outing = Outing(title: "O", journey: journey)
        let label = Label(name: "shared")
        outing.labels = [label]
        try context.save()
        context.delete(journey)
        try context.save()
        #expect(label.outings.isEmpty)

        let reopened = ModelContext(try container(backend))
        #expect(try reopened.fetchCount(FetchDescriptor<Outing>()) == 0)
        #expect(try reopened.fetch(FetchDescriptor<Label>()).map(\.name) == ["shared"])
    }

    @Test(arguments: Backend.allCases) func denyRefusesTheSaveAndChangesNothing(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
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
        let reopened = ModelContext(try container(backend))
        #expect(try reopened.fetchCount(FetchDescriptor<Writer>()) == 0)
        #expect(try reopened.fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test(arguments: Backend.allCases) func denyAllowsDeletingAModelWithoutRelatedModels(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let writer = Writer(name: "Unpublished")
        context.insert(writer)
        try context.save()
        context.delete(writer)
        try context.save()
        #expect(try ModelContext(try container(backend)).fetchCount(FetchDescriptor<Writer>()) == 0)
    }

    @Test(arguments: Backend.allCases) func aOneWayReferenceToADeletedModelReadsBackAsNil(_ backend: Backend) throws {
        // `Memo.pinned` has no inverse: deleting the attachment leaves no stored reference.
        let context = ModelContext(try container(backend))
        let memo = Memo(text: "m")
        let attachment = Attachment(fileName: "a")
        memo.pinned = attachment
        context.insert(memo)
        try context.save()

        let other = ModelContext(try container(backend))
        let stored = try other.fetch(FetchDescriptor<Attachment>())
        other.delete(stored[0])
        try other.save()

        let reopened = ModelContext(try container(backend))
        #expect(try reopened.fetch(FetchDescriptor<Memo>()).first?.pinned == nil)
        context.delete(attachment)
        try context.save()
        #expect(memo.pinned == nil)
    }

    @Test(arguments: Backend.allCases) func deletingByPredicateAppliesTheRulesToo(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        for name in ["a", "b"] {
            let journey = Journey(name: name)
            context.insert(journey)
            _ = Outing(title: "\(name)-outing", journey: journey)
        }
        try context.save()
        // A fresh context has none of the models loaded: the rules still apply.
        let other = ModelContext(try container(backend))
        try other.delete(model: Journey.self, where: #Predicate { $0.name == "a" })
        try other.save()

        let reopened = ModelContext(try container(backend))
        #expect(try reopened.fetch(FetchDescriptor<Outing>()).map(\.title) == ["b-outing"])
    }

    @Test(arguments: Backend.allCases) func deletingAnUnsavedModelUnlinksIt(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        let journey = Journey(name: "J")
        context.insert(journey)
        let outing = Outing(title: "draft", journey: journey)
        context.delete(outing)
        #expect(journey.outings.isEmpty)
        try context.save()
        #expect(try ModelContext(try container(backend)).fetchCount(FetchDescriptor<Outing>()) == 0)
    }

    /// A built-in store applies the rules to what it holds at the save, not only to what the
    /// deleting context loaded: a model another container (another process) related to the
    /// deleted one since is cascaded, or denies the deletion with nothing changed.
    @Test(arguments: [Backend.sqlite, .postgres].filter(Backend.allCases.contains))
    func rulesCoverWhatAnotherContainerRelatedSince(_ backend: Backend) throws {
        let (deleting, journey, writer) = try savedJourneyAndWriter(backend)

        let other = ModelContext(try container(backend))
        let otherJourney = try #require(try other.fetch(FetchDescriptor<Journey>()).first)
        let otherWriter = try #require(try other.fetch(FetchDescriptor<Writer>()).first)
        other.insert(Outing(title: "Hike", journey: otherJourney))
        other.insert(Book(title: "Notes", writer: otherWriter))
        try other.save()

        deleting.delete(writer)
        #expect(throws: SwiftDataError.self) { try deleting.save() }
        deleting.rollback()
        deleting.delete(journey)
        try deleting.save()

        try expectJourneyCascadedAndBookKept(backend)
    }

    /// The rules also reach what another container relates to the deleted model after the
    /// deleting context applied them to what it loaded and before its transaction: the store
    /// applies them again, in SQL, inside the transaction (here the other container saves while
    /// the deleting context posts `willSave`, the last moment before the store writes).
    @Test(arguments: [Backend.sqlite, .postgres].filter(Backend.allCases.contains))
    func rulesCoverWhatAnotherContainerRelatesWhileTheSaveRuns(_ backend: Backend) throws {
        let (deleting, journey, writer) = try savedJourneyAndWriter(backend)

        let other = ModelContext(try container(backend))
        let relate = PendingWork()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: deleting, queue: nil) { _ in
            relate.run()
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        relate.work = {
            let otherWriter = try #require(try other.fetch(FetchDescriptor<Writer>()).first)
            other.insert(Book(title: "Notes", writer: otherWriter))
            try other.save()
        }
        deleting.delete(writer)
        #expect(throws: SwiftDataError.self) { try deleting.save() }
        #expect(relate.work == nil, "the other container saved during the save")
        deleting.rollback()

        relate.work = {
            let otherJourney = try #require(try other.fetch(FetchDescriptor<Journey>()).first)
            other.insert(Outing(title: "Hike", journey: otherJourney))
            try other.save()
        }
        deleting.delete(journey)
        try deleting.save()
        #expect(relate.work == nil, "the other container saved during the save")

        try expectJourneyCascadedAndBookKept(backend)
    }

    /// A context that saved a journey and a writer without related models, and its two models
    /// (their relationships loaded).
    private func savedJourneyAndWriter(_ backend: Backend) throws -> (ModelContext, Journey, Writer) {
        let deleting = ModelContext(try container(backend))
        deleting.insert(Journey(name: "Alps"))
        deleting.insert(Writer(name: "Ada"))
        try deleting.save()
        let journey = try #require(try deleting.fetch(FetchDescriptor<Journey>()).first)
        let writer = try #require(try deleting.fetch(FetchDescriptor<Writer>()).first)
        #expect(journey.outings.isEmpty && writer.books.isEmpty)
        return (deleting, journey, writer)
    }

    /// The store, reopened, holds no journey or outing, and the book of the writer whose
    /// deletion was denied.
    private func expectJourneyCascadedAndBookKept(_ backend: Backend) throws {
        let reopened = ModelContext(try container(backend))
        #expect(try reopened.fetch(FetchDescriptor<Journey>()).isEmpty)
        #expect(try reopened.fetch(FetchDescriptor<Outing>()).isEmpty)
        let books = try reopened.fetch(FetchDescriptor<Book>())
        #expect(books.map(\.title) == ["Notes"] && books.first?.writer?.name == "Ada")
    }

    /// Work to run once, from a notification the context posts on the test's own thread.
    final class PendingWork: @unchecked Sendable {
        var work: (() throws -> Void)?

        func run() {
            let pending = work
            work = nil
            do { try pending?() } catch { Issue.record("the other container's save failed: \(error)") }
        }
    }

    /// The number of rows of a link table, read with SQLite directly.
    private func linkRows(_ table: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: store.url.path, readOnly: true, create: false)
        return try connection.integer("SELECT count(*) FROM \"\(table)\"") ?? -1
    }
}

/// `minimumModelCount` and `maximumModelCount` are checked when a save writes the relationship.
struct RelationshipCountTests {
    @Test(arguments: Backend.allCases) func aSaveBeyondTheMaximumThrowsAndTheContextStaysUsable(_ backend: Backend) throws {
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
