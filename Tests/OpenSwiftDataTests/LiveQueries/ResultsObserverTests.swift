import Foundation
import Observation
import PredicateFuzzing
import Testing
@testable import OpenSwiftData

/// `ResultsObserver` keeps a query's results current, whichever context, actor or process saved,
/// and tells Observation only when they change.
@MainActor
@Suite struct ResultsObserverTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer {
        try store.container(LiveBook.self, LiveAuthor.self)
    }

    func seeded(_ titles: [(String, Int)]) throws -> (ModelContainer, ModelContext) {
        let container = try container()
        let context = ModelContext(container)
        for (title, rating) in titles { context.insert(LiveBook(title, rating: rating)) }
        try context.save()
        return (container, context)
    }

    @Test func followsSavesOfItsOwnContextOtherContextsAndModelActors() async throws {
        let (container, context) = try seeded([("b", 5), ("a", 4), ("low", 1)])
        let observer = try ResultsObserver<LiveBook, Never>(
            filterBy: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.title)], modelContext: context)
        #expect(observer.results.map(\.title) == ["a", "b"])

        context.insert(LiveBook("c", rating: 3))
        try context.save()
        #expect(observer.results.map(\.title) == ["a", "b", "c"], "current as soon as the save returns")

        let other = ModelContext(container)
        let low = try #require(try other.fetch(FetchDescriptor<LiveBook>(predicate: #Predicate { $0.title == "low" })).first)
        low.rating = 5
        low.title = "aa"
        try other.save()
        #expect(observer.results.map(\.title) == ["a", "aa", "b", "c"], "another context's change brings a model in, at its place")

        let writer = LiveBookWriter(modelContainer: container)
        try await writer.add("0", rating: 9)
        try await writer.add("zz", rating: 0)
        #expect(observer.results.map(\.title) == ["0", "a", "aa", "b", "c"])

        let doomed = try #require(try other.fetch(FetchDescriptor<LiveBook>(predicate: #Predicate { $0.title == "b" })).first)
        other.delete(doomed)
        try other.save()
        #expect(observer.results.map(\.title) == ["0", "a", "aa", "c"])
        #expect(observer.results.allSatisfy { $0.modelContext === context }, "the models are the observer's context's")
    }

    /// A locale-aware sort keeps its order as models come and change: new and renamed models
    /// take their places by `localizedStandardCompare(_:)`, not by code point.
    @Test func aLocalizedStandardSortPlacesChangedModels() throws {
        let (_, context) = try seeded([("banana", 5), ("Cherry", 5), ("file10", 5)])
        let observer = try ResultsObserver<LiveBook, Never>(
            filterBy: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.title, comparator: .localizedStandard)], modelContext: context)
        #expect(observer.results.map(\.title) == ["banana", "Cherry", "file10"])
        context.insert(LiveBook("Apple", rating: 4))
        context.insert(LiveBook("file2", rating: 4))
        try context.save()
        #expect(observer.results.map(\.title) == ["Apple", "banana", "Cherry", "file2", "file10"])
        let cherry = try #require(observer.results.first { $0.title == "Cherry" })
        cherry.title = "Äpfel"
        try context.save()
        let expected = ["Äpfel", "Apple", "banana", "file2", "file10"].sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        #expect(observer.results.map(\.title) == expected)
        #expect(expected.last == "file10", "numbers inside the text order by value")
    }

    @Test func anObserverOnAModelActorUpdatesOnThatActor() async throws {
        let (container, context) = try seeded([("b", 1)])
        let watcher = LiveBookWatcher(modelContainer: container)
        try await watcher.start()
        context.insert(LiveBook("a", rating: 2))
        try context.save()
        for _ in 0..<3_000 where await watcher.backgroundUpdates() == 0 {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(await watcher.backgroundUpdates() == 1, "the observer's own task updated it, on the actor")
        #expect(await watcher.titles() == ["a", "b"])
    }

    @Test func observationFiresOnlyWhenTheResultsChange() async throws {
        let (container, context) = try seeded([("a", 5), ("b", 1)])
        let observer = try ResultsObserver<LiveBook, Never>(
            filterBy: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.title)], modelContainer: container)
        let counter = ChangeCounter()
        counter.track { _ = observer.results }

        let author = LiveAuthor("nobody shown")
        context.insert(author)
        let unshown = try #require(try context.fetch(FetchDescriptor<LiveBook>(predicate: #Predicate { $0.title == "b" })).first)
        unshown.price = 99   // still filtered out
        try context.save()
        observer.catchUp()
        for _ in 0..<20 { await Task.yield() }
        #expect(counter.count == 0, "a save that changes nothing the results show is no change")

        context.insert(LiveBook("c", rating: 4))
        try context.save()
        await waitUntil { counter.count == 1 }
        #expect(counter.count == 1, "the observer updated by itself and told Observation")
        #expect(observer.results.map(\.title) == ["a", "c"])
    }

    @Test func sectionsGroupByTheKeyPathInSortedOrder() throws {
        let container = try container()
        let context = ModelContext(container)
        for (title, genre) in [("Dune", "SF"), ("Emma", "Novel"), ("Ubik", "SF"), ("Anna", "Novel"), ("Solaris", "SF")] {
            context.insert(LiveBook(title, genre: genre))
        }
        try context.save()
        let observer = try ResultsObserver<LiveBook, String>(sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContext: context)
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["Novel", "SF"])
        #expect(sections.map { $0.map(\.title) } == [["Anna", "Emma"], ["Dune", "Solaris", "Ubik"]])
        #expect(sections[sectionTitle: "SF"]?.count == 3)
        #expect(sections[sectionTitle: "SF"]?.id == "SF")
        #expect(sections[sectionTitle: "Poetry"] == nil)
        #expect(observer.fetchDescriptor.sortBy.first?.keyPath == \LiveBook.genre, "the section key path sorts first")
        #expect(observer.fetchDescriptor.sortBy.last?.keyPath == \LiveBook.persistentModelID, "identifiers break ties")

        let emma = try #require(observer.results.first { $0.title == "Emma" })
        emma.genre = "Classic"
        try context.save()
        #expect(observer.sections?.sectionTitles == ["Classic", "Novel", "SF"])
        #expect(observer.sections?[sectionTitle: "Novel"]?.map(\.title) == ["Anna"])

        observer.sortBy = [SortDescriptor(\.title, order: .reverse)]
        #expect(observer.sortBy.first?.keyPath == \LiveBook.genre, "the section's sort is put back first")
        #expect(observer.sections?[sectionTitle: "SF"]?.map(\.title) == ["Ubik", "Solaris", "Dune"])
    }

    @Test func optionalSectionTitlesGroupNilUnderTheEmptyString() throws {
        let container = try container()
        let context = ModelContext(container)
        context.insert(LiveBook("a", shelf: "top"))
        context.insert(LiveBook("b"))
        context.insert(LiveBook("c", shelf: "top"))
        try context.save()
        let observer = try ResultsObserver<LiveBook, String>(
            fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), sectionBy: \.shelf, modelContainer: container)
        #expect(observer.sections?.sectionTitles == ["", "top"])
        #expect(observer.sections?[sectionTitle: ""]?.map(\.title) == ["b"])
        #expect(ResultsObserver<LiveBook, Never>.self != ResultsObserver<LiveBook, String>.self)
        let plain = try ResultsObserver<LiveBook, Never>(modelContext: context)
        #expect(plain.sections == nil, "no sections without a section key path")
    }

    @Test func settingTheFilterOrSortRefetches() throws {
        let (_, context) = try seeded([("a", 1), ("b", 2), ("c", 3)])
        let observer = try ResultsObserver<LiveBook, Never>(sortBy: [SortDescriptor(\.title)], modelContext: context)
        #expect(observer.results.map(\.title) == ["a", "b", "c"])
        observer.filterBy = #Predicate { $0.rating > 1 }
        #expect(observer.results.map(\.title) == ["b", "c"])
        observer.sortBy = [SortDescriptor(\.rating, order: .reverse)]
        #expect(observer.results.map(\.title) == ["c", "b"])
        #expect(observer.fetchDescriptor.predicate != nil)
        context.insert(LiveBook("d", rating: 9))
        try context.save()
        #expect(observer.results.map(\.title) == ["d", "c", "b"], "later saves follow the new descriptor")
    }

    @Test func limitsOffsetsAndRelationshipPredicatesHoldAfterEachChange() throws {
        let (container, context) = try seeded([("a", 1), ("b", 2), ("c", 3), ("d", 4)])
        var page = FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.rating, order: .reverse)])
        page.fetchLimit = 2
        page.fetchOffset = 1
        let paged = try ResultsObserver<LiveBook, Never>(fetchDescriptor: page, modelContext: context)
        let byAuthor = try ResultsObserver<LiveBook, Never>(
            filterBy: #Predicate { $0.author?.name == "Le Guin" }, sortBy: [SortDescriptor(\.title)], modelContext: context)
        #expect(paged.results.map(\.title) == ["c", "b"])
        #expect(byAuthor.results.isEmpty)

        let other = ModelContext(container)
        let books = try other.fetch(FetchDescriptor<LiveBook>())
        let author = LiveAuthor("Someone")
        other.insert(author)
        for book in books where book.title < "c" { book.author = author }
        other.insert(LiveBook("e", rating: 5))
        try other.save()
        #expect(paged.results.map(\.title) == ["d", "c"])
        #expect(byAuthor.results.isEmpty)

        author.name = "Le Guin"   // only the author's row changes
        try other.save()
        #expect(byAuthor.results.map(\.title) == ["a", "b"], "a change to a related model counts")

        try other.delete(model: LiveBook.self, where: #Predicate { $0.rating >= 4 })
        try other.save()
        #expect(paged.results.map(\.title) == ["b", "a"], "a deletion by predicate counts")
    }

    @Test func aSmallSaveUpdatesFromItsRowsUnlessTheQueryNeedsARefetch() throws {
        let (container, context) = try seeded([("a", 1), ("b", 5)])
        let rowLocal = try ResultsObserver<LiveBook, Never>(
            filterBy: #Predicate { $0.rating > 2 }, sortBy: [SortDescriptor(\.title)], modelContext: context)
        var limited = FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)])
        limited.fetchLimit = 1
        let paged = try ResultsObserver<LiveBook, Never>(fetchDescriptor: limited, modelContext: context)
        let related = try ResultsObserver<LiveBook, Never>(filterBy: #Predicate { $0.author == nil }, modelContext: context)

        let other = ModelContext(container)
        other.insert(LiveBook("0", rating: 3))
        try other.save()
        #expect(rowLocal.results.map(\.title) == ["0", "b"])
        #expect(paged.results.map(\.title) == ["0"])
        #expect(related.results.count == 3)
        #expect(rowLocal.live.updateCounts.rowByRow == 1 && rowLocal.live.updateCounts.refetched == 0, "from the saved row alone")
        #expect(paged.live.updateCounts.refetched == 1, "a page refetches")
        #expect(related.live.updateCounts.refetched == 1, "a relationship in the predicate refetches")

        other.insert(LiveAuthor("unrelated"))
        try other.save()
        _ = rowLocal.results
        #expect(rowLocal.live.updateCounts.rowByRow == 1 && rowLocal.live.updateCounts.refetched == 0, "a save of other models costs nothing")
    }

    @Test func unsavedChangesOfItsContextShowAtTheNextUpdate() throws {
        let (container, context) = try seeded([("a", 1)])
        let observer = try ResultsObserver<LiveBook, Never>(sortBy: [SortDescriptor(\.title)], modelContext: context)
        context.insert(LiveBook("pending", rating: 2))
        let other = ModelContext(container)
        other.insert(LiveBook("b", rating: 3))
        try other.save()
        #expect(observer.results.map(\.title) == ["a", "b", "pending"], "a fetch that includes pending changes, as the descriptor asks")
    }

    @Test func aReleasedObserverStopsObserving() async throws {
        let (container, context) = try seeded([("a", 1)])
        let log = container.saveLog
        let before = log.signalSubscriberCount
        weak var released: ResultsObserver<LiveBook, Never>?
        do {
            let observer = try ResultsObserver<LiveBook, Never>(modelContext: context)
            released = observer
            #expect(log.signalSubscriberCount == before + 1)
        }
        #expect(released == nil, "nothing but its owner holds an observer")
        await waitUntil { log.signalSubscriberCount == before }
        #expect(log.signalSubscriberCount == before, "its watch ended")
        context.insert(LiveBook("b", rating: 1))
        try context.save()
    }

    @Test func observersCreatedAndReleasedLeaveNothingBehind() async throws {
        let (container, context) = try seeded([("a", 1), ("b", 2)])
        let log = container.saveLog
        // A thousand here, each checked for outliving its owner; the memory probe below runs ten
        // thousand in a process of its own. (Each hundredth round waits for the main actor, which
        // the rest of a full test run keeps busy: more rounds here only wait longer.)
        for round in 0..<1_000 {
            if round % 100 == 0 {
                // The watches of released observers end on the main actor: let them.
                await waitUntil { log.signalSubscriberCount == 0 }
            }
            weak var weakObserver: ResultsObserver<LiveBook, Never>?
            do {
                let observer = try ResultsObserver<LiveBook, Never>(filterBy: #Predicate { $0.rating > 0 }, modelContext: context)
                weakObserver = observer
                if observer.results.count != 2 { Issue.record("round \(round): \(observer.results.count) results") }
            }
            if weakObserver != nil { Issue.record("round \(round): the observer outlived its owner") }
        }
        await waitUntil { log.signalSubscriberCount == 0 }
        #expect(log.signalSubscriberCount == 0, "every watch ended")
        #expect(context.identityMap.registry.values.reduce(0) { $0 + $1.models.count } == 2, "the context holds the two models, once")
        // Resident memory, in a process of its own: 9,000 observers after a warm-up of 1,000.
        if let growth = try residentGrowth(ofProbe: "observers", rounds: 10_000), !isRunningUnderThreadSanitizer {
            #expect(growth < 4 << 20, "observers created and released leave memory flat (\(growth / 1024) KiB more)")
        }
    }

    @Test nonisolated func anObserverOutsideAnyActorUpdatesWhenRead() throws {
        let store = TemporaryStore()
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let context = ModelContext(container)
        context.insert(LiveBook("a", rating: 1))
        try context.save()
        let observer = try makeUnisolatedObserver(context)
        #expect(container.saveLog.signalSubscriberCount == 0, "no watch without an actor to update on")
        context.insert(LiveBook("b", rating: 1))
        try context.save()
        #expect(observer.results.map(\.title) == ["a", "b"])
    }

    @Test func anotherProcessSaveReachesTheObserver() async throws {
        let container = try ModelContainer(for: Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self]), configurations: [store.configuration()])
        let setup = ModelContext(container)
        setup.insert(FuzzOwner(name: "first", rank: 1))
        setup.insert(FuzzOwner(name: "doomed", rank: 0))
        try setup.save()
        let observer = try ResultsObserver<FuzzOwner, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: container)
        #expect(observer.results.map(\.name) == ["doomed", "first"])
        let counter = ChangeCounter()
        counter.track { _ = observer.results }

        let (status, _) = try HelperProcess.run("HistoryWriter", [store.helperArgument, "edit"])
        #expect(status == 0)
        await waitUntil { counter.count > 0 }
        #expect(counter.count > 0, "the container noticed the other process's save by itself")
        #expect(observer.results.map(\.name) == ["first", "second"])
        #expect(observer.results.first?.rank == 99)
    }
}

/// Makes an observer from a function that runs outside any actor, so that it has no isolation.
nonisolated func makeUnisolatedObserver(_ context: ModelContext) throws -> ResultsObserver<LiveBook, Never> {
    try ResultsObserver<LiveBook, Never>(sortBy: [SortDescriptor(\.title)], modelContext: context, isolation: nil)
}

