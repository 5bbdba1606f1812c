import Foundation

extension ResultsObserver where SectionTitle == Never {
    /// Creates a new unsectioned observer with the given fetch descriptor and model context.
    ///
    /// - Parameters:
    ///   - fetchDescriptor: The descriptor defining the fetch criteria.
    ///   - modelContext: The model context to fetch from and observe for changes.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectionTitle: nil, sectionSort: nil, modelContext: modelContext, isolation: isolation)
    }

    /// Creates a new unsectioned observer with the given fetch descriptor and model container.
    ///
    /// A new `ModelContext` is created from the provided container.
    ///
    /// - Parameters:
    ///   - fetchDescriptor: The descriptor defining the fetch criteria.
    ///   - modelContainer: The model container from which a new context will be created.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectionTitle: nil, sectionSort: nil, modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates a new unsectioned observer with individual filter and sort criteria and a model context.
    ///
    /// - Parameters:
    ///   - filterBy: An optional predicate to filter the results.
    ///   - sortBy: An optional array of sort descriptors to order the results.
    ///   - modelContext: The model context to fetch from and observe for changes.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), modelContext: modelContext, isolation: isolation)
    }

    /// Creates a new unsectioned observer with individual filter and sort criteria and a model container.
    ///
    /// A new `ModelContext` is created from the provided container.
    ///
    /// - Parameters:
    ///   - filterBy: An optional predicate to filter the results.
    ///   - sortBy: An optional array of sort descriptors to order the results.
    ///   - modelContainer: The model container from which a new context will be created.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), modelContainer: modelContainer, isolation: isolation)
    }
}

extension ResultsObserver where SectionTitle == String {
    /// Creates a new observer with the given fetch descriptor, a String section key path, and a
    /// model context.
    ///
    /// The `sectionBy` key path becomes the first sort descriptor, so that each section's models
    /// are contiguous.
    ///
    /// - Parameters:
    ///   - fetchDescriptor: The descriptor defining the fetch criteria.
    ///   - sectionBy: A key path on the element type that returns the section name.
    ///   - modelContext: The model context to fetch from and observe for changes.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: any KeyPath<Element, String> & Sendable,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectionTitle: { $0[keyPath: sectionBy] }, sectionSort: SortDescriptor(sectionBy),
                      modelContext: modelContext, isolation: isolation)
    }

    /// Creates a new observer with the given fetch descriptor, an optional String section key path,
    /// and a model context.
    ///
    /// Models whose section name is `nil` share the section titled with the empty string, first
    /// in the results.
    ///
    /// - Parameters:
    ///   - fetchDescriptor: The descriptor defining the fetch criteria.
    ///   - sectionBy: A key path on the element type that returns an optional section name.
    ///   - modelContext: The model context to fetch from and observe for changes.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: any KeyPath<Element, String?> & Sendable,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectionTitle: { $0[keyPath: sectionBy] ?? "" }, sectionSort: SortDescriptor(sectionBy),
                      modelContext: modelContext, isolation: isolation)
    }

    /// Creates a new observer with the given fetch descriptor, a String section key path, and a
    /// model container.
    ///
    /// A new `ModelContext` is created from the provided container.
    ///
    /// - Parameters:
    ///   - fetchDescriptor: The descriptor defining the fetch criteria.
    ///   - sectionBy: A key path on the element type that returns the section name.
    ///   - modelContainer: The model container from which a new context will be created.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: any KeyPath<Element, String> & Sendable,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates a new observer with the given fetch descriptor, an optional String section key path,
    /// and a model container.
    ///
    /// A new `ModelContext` is created from the provided container.
    ///
    /// - Parameters:
    ///   - fetchDescriptor: The descriptor defining the fetch criteria.
    ///   - sectionBy: A key path on the element type that returns an optional section name.
    ///   - modelContainer: The model container from which a new context will be created.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: any KeyPath<Element, String?> & Sendable,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates a new observer with individual filter and sort criteria, a String section key path,
    /// and a model context.
    ///
    /// - Parameters:
    ///   - filterBy: An optional predicate to filter the results.
    ///   - sortBy: An optional array of sort descriptors to order the results.
    ///   - sectionBy: A key path on the element type that returns the section name.
    ///   - modelContext: The model context to fetch from and observe for changes.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: any KeyPath<Element, String> & Sendable,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
                      modelContext: modelContext, isolation: isolation)
    }

    /// Creates a new observer with individual filter and sort criteria, an optional String section
    /// key path, and a model context.
    ///
    /// - Parameters:
    ///   - filterBy: An optional predicate to filter the results.
    ///   - sortBy: An optional array of sort descriptors to order the results.
    ///   - sectionBy: A key path on the element type that returns an optional section name.
    ///   - modelContext: The model context to fetch from and observe for changes.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: any KeyPath<Element, String?> & Sendable,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
                      modelContext: modelContext, isolation: isolation)
    }

    /// Creates a new observer with individual filter and sort criteria, a String section key path,
    /// and a model container.
    ///
    /// A new `ModelContext` is created from the provided container.
    ///
    /// - Parameters:
    ///   - filterBy: An optional predicate to filter the results.
    ///   - sortBy: An optional array of sort descriptors to order the results.
    ///   - sectionBy: A key path on the element type that returns the section name.
    ///   - modelContainer: The model container from which a new context will be created.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: any KeyPath<Element, String> & Sendable,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
                      modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates a new observer with individual filter and sort criteria, an optional String section
    /// key path, and a model container.
    ///
    /// A new `ModelContext` is created from the provided container.
    ///
    /// - Parameters:
    ///   - filterBy: An optional predicate to filter the results.
    ///   - sortBy: An optional array of sort descriptors to order the results.
    ///   - sectionBy: A key path on the element type that returns an optional section name.
    ///   - modelContainer: The model container from which a new context will be created.
    ///   - isolation: The actor the observer updates on: the caller's.
    /// - Throws: An error if the initial fetch fails.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: any KeyPath<Element, String?> & Sendable,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
                      modelContext: ModelContext(modelContainer), isolation: isolation)
    }
}
