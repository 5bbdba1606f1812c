import Foundation
@testable import OpenSwiftData

/// A book, observed by the results observer tests.
@Model
final class LiveBook {
    var title: String
    var genre: String
    var rating: Int
    var price: Double
    var shelf: String?
    var author: LiveAuthor?

    init(_ title: String, genre: String = "Novel", rating: Int = 3, price: Double = 10, shelf: String? = nil) {
        self.title = title
        self.genre = genre
        self.rating = rating
        self.price = price
        self.shelf = shelf
    }
}

/// A book's author.
@Model
final class LiveAuthor {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \LiveBook.author) var books: [LiveBook] = []

    init(_ name: String) { self.name = name }
}

/// A model actor that edits books on its own context, as a background importer would.
@ModelActor
actor LiveBookWriter {
    func add(_ title: String, rating: Int) throws {
        modelContext.insert(LiveBook(title, rating: rating))
        try modelContext.save()
    }
}

/// A model actor that keeps a results observer on its own context, as a background service would.
@ModelActor
actor LiveBookWatcher {
    private var observer: ResultsObserver<LiveBook, Never>?

    func start() throws {
        observer = try ResultsObserver(sortBy: [SortDescriptor(\.title)], modelContext: modelContext)
    }

    /// How many updates the observer made by itself (reading its results would make one).
    func backgroundUpdates() -> Int {
        guard let counts = observer?.live.updateCounts else { return 0 }
        return counts.rowByRow + counts.refetched
    }

    func titles() -> [String] { observer?.results.map(\.title) ?? [] }
}

/// Counts the changes `withObservationTracking` reports, for tests that wait for one.
@MainActor
final class ChangeCounter {
    private(set) var count = 0

    /// Counts the next change of whatever `read` reads.
    func track(_ read: @escaping @MainActor () -> Void) {
        withObservationTracking {
            read()
        } onChange: { [weak self] in
            Task { @MainActor in self?.count += 1 }
        }
    }
}
