import Foundation
import Testing
@testable import OpenSwiftData

/// Deletions by predicate of models with `.cascade`, `.nullify` and `.deny` relationships run in
/// SQL; they must leave the store exactly as loading the models and applying the rules does.
struct RuleBearingDeleteTests {
    let store = TemporaryStore()

    /// A random graph: journeys with outings (cascade) and lodgings (nullify), outings with labels
    /// (many-to-many), folder trees (cascade through chains), memos with one-way attachments
    /// (cascade), writers with books (deny).
    private func seed(_ url: URL, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let context = ModelContext(try ModelContainer(for: Schema([Journey.self, Folder.self, Memo.self, Writer.self]), configurations: [TemporaryStore.defaultBackend.configuration(url: url)]))
        var journeys: [Journey] = []
        var labels: [Label] = []
        for index in 0..<12 { labels.append(Label(name: "l\(index)")) }
        for index in 0..<40 {
            let journey = Journey(name: "j\(index)", startDate: Date(timeIntervalSinceReferenceDate: Double(index)))
            context.insert(journey)
            journeys.append(journey)
            if Bool.random(using: &random) { journey.lodging = Lodging(name: "lodging \(index)") }
            for outing in 0..<Int.random(in: 0...4, using: &random) {
                let outing = Outing(title: "o\(index).\(outing)", cost: Int.random(in: 0...100, using: &random), journey: journey)
                outing.labels = labels.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
                context.insert(outing)
            }
        }
        var folders: [Folder] = []
        for index in 0..<30 {
            let folder = Folder(name: "f\(index)", parent: folders.isEmpty || Int.random(in: 0..<4, using: &random) == 0 ? nil : folders.randomElement(using: &random))
            context.insert(folder)
            folders.append(folder)
        }
        for index in 0..<10 {
            let memo = Memo(text: "m\(index)")
            context.insert(memo)
            memo.attachments = (0..<Int.random(in: 0...3, using: &random)).map { Attachment(fileName: "a\(index).\($0)") }
            if Bool.random(using: &random) { memo.pinned = memo.attachments.first }
        }
        for index in 0..<6 {
            let writer = Writer(name: "w\(index)")
            context.insert(writer)
            if index.isMultiple(of: 2) { writer.books = [Book(title: "b\(index)")] }
        }
        try context.save()
    }

    /// Everything the store holds, as text: rows and relationships, read by a fresh container.
    private func dump(_ url: URL) throws -> [String] {
        let context = ModelContext(try ModelContainer(for: Schema([Journey.self, Folder.self, Memo.self, Writer.self]), configurations: [TemporaryStore.defaultBackend.configuration(url: url)]))
        var lines: [String] = []
        for journey in try context.fetch(FetchDescriptor<Journey>()) {
            lines.append("journey \(journey.name) lodging \(journey.lodging?.name ?? "-") outings \(journey.outings.map(\.title).sorted())")
        }
        for outing in try context.fetch(FetchDescriptor<Outing>()) {
            lines.append("outing \(outing.title) journey \(outing.journey?.name ?? "-") labels \(outing.labels.map(\.name).sorted())")
        }
        for lodging in try context.fetch(FetchDescriptor<Lodging>()) { lines.append("lodging \(lodging.name) \(lodging.journey?.name ?? "-")") }
        for label in try context.fetch(FetchDescriptor<Label>()) { lines.append("label \(label.name) \(label.outings.map(\.title).sorted())") }
        for folder in try context.fetch(FetchDescriptor<Folder>()) {
            lines.append("folder \(folder.name) parent \(folder.parent?.name ?? "-") children \(folder.children.map(\.name).sorted())")
        }
        for memo in try context.fetch(FetchDescriptor<Memo>()) {
            lines.append("memo \(memo.text) \(memo.attachments.map(\.fileName).sorted()) pinned \(memo.pinned?.fileName ?? "-")")
        }
        for attachment in try context.fetch(FetchDescriptor<Attachment>()) { lines.append("attachment \(attachment.fileName)") }
        for writer in try context.fetch(FetchDescriptor<Writer>()) { lines.append("writer \(writer.name) \(writer.books.map(\.title))") }
        for book in try context.fetch(FetchDescriptor<Book>()) { lines.append("book \(book.title) \(book.writer?.name ?? "-")") }
        return lines.sorted()
    }

    /// Deletes by the predicates of one round, in the store or by loading the models.
    private func deleteAndSave(_ url: URL, round: Int, inStore: Bool) throws -> Result<Void, SwiftDataError> {
        let context = ModelContext(try ModelContainer(for: Schema([Journey.self, Folder.self, Memo.self, Writer.self]), configurations: [TemporaryStore.defaultBackend.configuration(url: url)]))
        context.saving.deleteRulesMayRunInStore = inStore
        let bound = Date(timeIntervalSinceReferenceDate: Double(round * 7 % 40))
        try context.delete(model: Journey.self, where: #Predicate { $0.startDate < bound })
        let folderName = "f\(round % 30)"
        try context.delete(model: Folder.self, where: #Predicate { $0.name >= folderName })
        if round.isMultiple(of: 2) { try context.delete(model: Memo.self, where: #Predicate { $0.text != "m3" }) }
        if round % 3 == 1 { try context.delete(model: Writer.self, where: #Predicate { $0.name == "w1" || $0.name == "w3" }) }
        if round % 3 == 2 { try context.delete(model: Writer.self) }
        do {
            try context.save()
            return .success(())
        } catch let error as SwiftDataError {
            return .failure(error)
        }
    }

    @Test("SQL delete rules leave the store as loading the models does", arguments: 0..<TestCounts.count(quick: 6, full: 12))
    func differential(round: Int) throws {
        let inSQL = store.url
        let loading = store.url.deletingLastPathComponent().appendingPathComponent("loading.store")
        try seed(inSQL, seed: UInt64(round + 1))
        try seed(loading, seed: UInt64(round + 1))
        #expect(try dump(inSQL) == dump(loading))
        let fast = try deleteAndSave(inSQL, round: round, inStore: true)
        let slow = try deleteAndSave(loading, round: round, inStore: false)
        switch (fast, slow) {
        case (.success, .success): break
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("one path threw and the other did not: \(fast) vs \(slow)")
        }
        #expect(try dump(inSQL) == dump(loading))
    }

    @Test("models the context holds become deleted, and lose the deleted models, after an SQL cascade")
    func registeredModels() throws {
        try seed(store.url, seed: 7)
        let context = ModelContext(try ModelContainer(for: Schema([Journey.self, Folder.self, Memo.self, Writer.self]), configurations: [TemporaryStore.defaultBackend.configuration(url: store.url)]))
        let outings = try context.fetch(FetchDescriptor<Outing>(predicate: #Predicate { $0.journey?.name == "j0" || $0.journey?.name == "j1" }))
        let lodgings = try context.fetch(FetchDescriptor<Lodging>())
        let survivor = try #require(try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.name == "j5" })).first)
        try context.delete(model: Journey.self, where: #Predicate { $0.name == "j0" || $0.name == "j1" })
        try context.save()
        #expect(!outings.isEmpty && outings.allSatisfy(\.isDeleted))
        #expect(!survivor.isDeleted)
        for lodging in lodgings where lodging.name == "lodging 0" || lodging.name == "lodging 1" {
            #expect(lodging.journey == nil)
            #expect(!lodging.isDeleted)
        }
        #expect(try context.fetchCount(FetchDescriptor<Outing>(predicate: #Predicate { $0.journey == nil })) == 0)
        // Each deleted row is in the history once.
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let deletions = history.last?.changes.filter { if case .delete = $0 { true } else { false } } ?? []
        #expect(deletions.count == Set(deletions.map(\.changedPersistentIdentifier)).count)
        #expect(deletions.count == 2 + outings.count)
    }

    @Test("a .deny relationship that holds a model stops the deletion before anything changes")
    func deny() throws {
        try seed(store.url, seed: 3)
        let before = try dump(store.url)
        let context = ModelContext(try ModelContainer(for: Schema([Journey.self, Folder.self, Memo.self, Writer.self]), configurations: [TemporaryStore.defaultBackend.configuration(url: store.url)]))
        try context.delete(model: Journey.self, where: #Predicate { $0.name == "j2" })
        try context.delete(model: Writer.self, where: #Predicate { $0.name == "w0" })
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        #expect(try dump(store.url) == before)
        // Writers without books go.
        let other = ModelContext(try ModelContainer(for: Schema([Journey.self, Folder.self, Memo.self, Writer.self]), configurations: [TemporaryStore.defaultBackend.configuration(url: store.url)]))
        try other.delete(model: Writer.self, where: #Predicate { $0.name == "w1" })
        try other.save()
        #expect(try other.fetchCount(FetchDescriptor<Writer>()) == 5)
    }
}

extension RuleBearingDeleteTests {
    @Test("a row deleted by predicate and held by the context is in the history once")
    func historyRecordsEachDeletionOnce() throws {
        try seed(store.url, seed: 11)
        let context = ModelContext(try ModelContainer(for: Schema([Journey.self, Folder.self, Memo.self, Writer.self]), configurations: [TemporaryStore.defaultBackend.configuration(url: store.url)]))
        // Registered first, so that the deletion by predicate also deletes them one by one.
        let labels = try context.fetch(FetchDescriptor<Label>(predicate: #Predicate { $0.name < "l3" }))
        #expect(labels.count == 5)   // l0, l1, l10, l11, l2
        try context.delete(model: Label.self, where: #Predicate { $0.name < "l3" })
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let deletions = history.last?.changes.filter { if case .delete = $0 { true } else { false } } ?? []
        #expect(deletions.count == labels.count)
        #expect(Set(deletions.map(\.changedPersistentIdentifier)).count == labels.count)
    }
}
