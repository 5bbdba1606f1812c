import Foundation
import Observation

/// Observes and tracks changes to a collection of persistent models in a model context.
///
/// A results observer keeps the results of a fetch current, whoever changes the store: the same
/// model context, other contexts and model actors of the container, and other processes. It is
/// `Observable`: reading ``results`` or ``sections`` inside `withObservationTracking` (or a SwiftUI
/// view) registers for a change, and a save that changes neither the models they hold nor their
/// order does not count as one.
///
/// Use `Never` as `SectionTitle` when no sectioning is needed:
///
/// ```swift
/// let observer = try ResultsObserver<Book, Never>(
///     filterBy: #Predicate { $0.isPublished },
///     sortBy: [SortDescriptor(\.title)],
///     modelContext: context
/// )
/// ```
///
/// Use `String` to group the results by a key path:
///
/// ```swift
/// let observer = try ResultsObserver<Book, String>(sectionBy: \.genre, modelContext: context)
/// ```
///
/// The observer updates on the actor it was created on: soon after each save (other processes'
/// saves are looked for twice a second), and whenever you read ``results`` or ``sections``, so
/// that they reflect every save this process has made by then. An observer created outside any
/// actor updates only when read. A save that changes a few rows updates the results from those
/// rows when the fetch allows it, without refetching; a fetch limit or offset, and predicates or
/// sorts that read relationships, refetch. The observer stops when it is released.
public final class ResultsObserver<Element, SectionTitle>: Observable where Element: PersistentModel, SectionTitle: Hashable {
    /// The model context from which models are fetched.
    ///
    /// This context is set at initialization and determines the data store and change-tracking
    /// scope for the observer.
    public let modelContext: ModelContext

    private let registrar = ObservationRegistrar()
    let live: LiveResults<Element>
    private let sectionTitle: ((Element) -> SectionTitle)?
    private let sectionSort: SortDescriptor<Element>?
    private var collection: FetchResultsCollection<Element>
    private var sectioned: SectionedResults<Element, SectionTitle>?
    private var watcher: Task<Void, Never>?
    private var failure: (any Error)?

    init(
        fetchDescriptor: FetchDescriptor<Element>, sectionTitle: ((Element) -> SectionTitle)?, sectionSort: SortDescriptor<Element>?,
        modelContext: ModelContext, isolation: isolated (any Actor)?
    ) throws {
        self.modelContext = modelContext
        self.sectionTitle = sectionTitle
        self.sectionSort = sectionSort
        var descriptor = fetchDescriptor
        descriptor.sortBy = Self.normalized(descriptor.sortBy, sectionSort: sectionSort)
        live = try LiveResults(descriptor: descriptor, context: modelContext)
        collection = FetchResultsCollection(live.models)
        sectioned = sectionTitle.map { SectionedResults(live.models, title: $0) }
        if isolation != nil { watch(isolation: isolation) }
    }

    deinit { watcher?.cancel() }

    /// The fetch descriptor used to query the model context.
    ///
    /// It is the descriptor given at initialization, with the `sectionBy` key path as the first sort
    /// descriptor when sectioning and a sort by `persistentModelID` last, for a stable order; change
    /// it through ``filterBy`` and ``sortBy``.
    public var fetchDescriptor: FetchDescriptor<Element> {
        registrar.access(self, keyPath: \.fetchDescriptor)
        return live.descriptor
    }

    /// The sort descriptors used to order the results.
    ///
    /// Setting this property refetches at once. When sectioning, the section's sort descriptor is
    /// put first again if it is not; a sort by `persistentModelID` is appended if not present.
    public var sortBy: [SortDescriptor<Element>] {
        get {
            registrar.access(self, keyPath: \.sortBy)
            return live.descriptor.sortBy
        }
        set {
            var descriptor = live.descriptor
            descriptor.sortBy = Self.normalized(newValue, sectionSort: sectionSort)
            refetch(descriptor)
        }
    }

    /// The predicate that filters the results, or `nil` for all models.
    ///
    /// Setting this property refetches at once.
    public var filterBy: Predicate<Element>? {
        get {
            registrar.access(self, keyPath: \.filterBy)
            return live.descriptor.predicate
        }
        set {
            var descriptor = live.descriptor
            descriptor.predicate = newValue
            refetch(descriptor)
        }
    }

    /// The current results, in the fetch descriptor's order.
    public var results: FetchResultsCollection<Element> {
        catchUp()
        registrar.access(self, keyPath: \.results)
        return collection
    }

    /// The sections of the current results, grouped by the `sectionBy` key path, in the order of
    /// their first appearance in the sorted results; `nil` for an observer created without one
    /// (`SectionTitle == Never`).
    public var sections: SectionedResults<Element, SectionTitle>? {
        catchUp()
        registrar.access(self, keyPath: \.sections)
        return sectioned
    }

    /// The error of the last update that could not read the store, or `nil` once one succeeds.
    ///
    /// The results stay as they were and the next save retries. (An OpenSwiftData addition:
    /// SwiftData's observer has no way to report it.)
    public var updateError: (any Error)? {
        registrar.access(self, keyPath: \.updateError)
        return failure
    }

    /// Brings the results up to date with the saves made since the last update.
    func catchUp() {
        do {
            switch try live.update() {
            case .untouched: break
            case .changed: publishResults()
            case .sameModels: publishSectionsIfChanged()
            }
            setFailure(nil)
        } catch {
            setFailure(error)
        }
    }

    private func refetch(_ descriptor: FetchDescriptor<Element>) {
        do {
            try live.replace(descriptor)
            setFailure(nil)
        } catch {
            setFailure(error)
            return
        }
        registrar.withMutation(of: self, keyPath: \.fetchDescriptor) {
            registrar.withMutation(of: self, keyPath: \.sortBy) {
                registrar.withMutation(of: self, keyPath: \.filterBy) {}
            }
        }
        publishResults()
    }

    private func publishResults() {
        registrar.withMutation(of: self, keyPath: \.results) {
            collection = FetchResultsCollection(live.models)
        }
        if let sectionTitle {
            registrar.withMutation(of: self, keyPath: \.sections) {
                sectioned = SectionedResults(live.models, title: sectionTitle)
            }
        }
    }

    /// Regroups the same results: a model's section title can change without moving it.
    private func publishSectionsIfChanged() {
        guard let sectionTitle else { return }
        let regrouped = SectionedResults(live.models, title: sectionTitle)
        if let sectioned, regrouped.hasSameSections(as: sectioned) { return }
        registrar.withMutation(of: self, keyPath: \.sections) { sectioned = regrouped }
    }

    private func setFailure(_ error: (any Error)?) {
        guard error != nil || failure != nil else { return }
        registrar.withMutation(of: self, keyPath: \.updateError) { failure = error }
    }

    /// Updates the observer on `isolation` after each save of the container, and has the container
    /// look for other processes' saves.
    private func watch(isolation: isolated (any Actor)?) {
        let container = modelContext.container
        let signals = container.saveLog.signals()
        container.followExternalSaves()
        watcher = Task { [weak self] in
            _ = isolation
            for await _ in signals {
                guard let self else { return }
                self.catchUp()
            }
        }
    }

    /// The sort descriptors with the section's first and a tie-break by identifier last, in the
    /// direction of the last one (``TieOrder``).
    private static func normalized(_ sortBy: [SortDescriptor<Element>], sectionSort: SortDescriptor<Element>?) -> [SortDescriptor<Element>] {
        var sortBy = sortBy
        if let sectionSort, sortBy.first?.keyPath != sectionSort.keyPath {
            sortBy.insert(sectionSort, at: 0)
        }
        if !sortBy.contains(where: { $0.keyPath == \Element.persistentModelID }) {
            // Ties as a fetch orders them: by identifier, descending after a reverse last sort.
            sortBy.append(SortDescriptor(\Element.persistentModelID, order: TieOrder.order(after: sortBy)))
        }
        return sortBy
    }
}
