import Foundation
import Testing
@testable import OpenSwiftData

/// `HistoryObserver` counts new relevant transactions: of the observed models, by the given
/// authors, from any context of the container.
@MainActor
@Suite struct HistoryObserverTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Schema([HTrip.self, HVisit.self, HTag.self]), configurations: [store.configuration()])
    }

    @Test func countsOnlyTransactionsOfTheObservedModelsAndAuthors() async throws {
        let container = try container()
        let setup = ModelContext(container)
        setup.insert(HTrip(name: "before", code: "b"))
        try setup.save()
        let observer = try HistoryObserver(observedModels: [HTrip.self], authors: ["app"], modelContainer: container)
        #expect(observer.eventCounter == 0, "history from before the observer does not count")

        let other = ModelContext(container)
        other.author = "app"
        other.insert(HVisit(title: "not observed"))
        try other.save()
        other.author = "sync"
        other.insert(HTrip(name: "another author", code: "s"))
        try other.save()
        other.author = "app"
        other.insert(HTrip(name: "counted", code: "c"))
        try other.save()
        await waitUntil { observer.eventCounter > 0 }
        #expect(observer.eventCounter == 1)

        try observer.check()
        #expect(observer.eventCounter == 1, "nothing new")
        other.insert(HTrip(name: "again", code: "a"))
        try other.save()
        await waitUntil { observer.eventCounter > 1 }
        #expect(observer.eventCounter == 2)
    }

    @Test func givenTokensReplayWhatCameAfterThem() async throws {
        let container = try container()
        let context = ModelContext(container)
        context.insert(HTrip(name: "one", code: "1"))
        try context.save()
        let token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        context.insert(HTrip(name: "two", code: "2"))
        try context.save()
        let identifier = token.storeIdentifier
        let name = try #require(container.configurationName(forStoreIdentifier: identifier))
        #expect(container.storeIdentifier(forConfigurationNamed: name) == identifier)
        let observer = try HistoryObserver(historyTokens: [identifier: token], modelContainer: container)
        try observer.check()
        #expect(observer.eventCounter == 1, "the save after the token")
    }

    @Test func aReleasedObserverStopsWatching() async throws {
        let container = try container()
        weak var released: HistoryObserver?
        do {
            let observer = try HistoryObserver(modelContainer: container)
            released = observer
        }
        await waitUntil { released == nil }
        #expect(released == nil)
    }
}
