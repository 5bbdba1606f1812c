/// A random-access collection of ``ResultsSection`` values: query results grouped by a section
/// key path, in the order the sections first appear in the sorted results.
///
/// ```swift
/// let observer = try ResultsObserver<Book, String>(sectionBy: \.genre, modelContext: context)
/// for section in observer.sections ?? SectionedResults() {
///     print(section.title, section.count)
/// }
/// let mysteries = observer.sections?[sectionTitle: "Mystery"]
/// ```
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection {
    private let sections: [ResultsSection<Element, SectionTitle>]
    private let positions: [SectionTitle: Int]

    /// Creates an empty collection of sections.
    public init() {
        sections = []
        positions = [:]
    }

    /// Groups sorted models into sections of consecutive models with the same title.
    init(_ models: [Element], title: (Element) -> SectionTitle) {
        var sections: [ResultsSection<Element, SectionTitle>] = []
        var positions: [SectionTitle: Int] = [:]
        var start = 0
        while start < models.count {
            let sectionTitle = title(models[start])
            var end = start + 1
            while end < models.count, title(models[end]) == sectionTitle { end += 1 }
            if let existing = positions[sectionTitle] {
                // The section key path sorts first, so a title comes back only when the descriptor's
                // own order puts equal titles apart; the section keeps every model with its title.
                sections[existing] = ResultsSection(title: sectionTitle, elements: sections[existing].elements + models[start..<end])
            } else {
                positions[sectionTitle] = sections.count
                sections.append(ResultsSection(title: sectionTitle, elements: models[start..<end]))
            }
            start = end
        }
        self.sections = sections
        self.positions = positions
    }

    /// The position of the first section.
    public var startIndex: Int { 0 }
    /// The position after the last section.
    public var endIndex: Int { sections.count }

    /// The section at a position.
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> {
        sections[position]
    }

    /// Returns the section with the given title, or `nil` if no such section exists.
    ///
    /// - Complexity: O(1)
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        positions[title].map { sections[$0] }
    }

    /// Whether both have the same titles in the same order, each with the same models.
    func hasSameSections(as other: Self) -> Bool {
        sections.count == other.sections.count && zip(sections, other.sections).allSatisfy { mine, theirs in
            mine.title == theirs.title && mine.elements.count == theirs.elements.count
                && zip(mine.elements, theirs.elements).allSatisfy { $0 === $1 }
        }
    }

    /// The section titles in order.
    public var sectionTitles: [SectionTitle] {
        sections.map(\.title)
    }
}

/// A section of fetched results grouped by a common section key path value: a random-access
/// collection of the section's models, in the results' order.
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Identifiable {
    /// The identifier of the section: the value its models share for the `sectionBy` key path.
    public let title: SectionTitle
    /// The models of the section.
    let elements: ArraySlice<Element>

    init(title: SectionTitle, elements: ArraySlice<Element>) {
        self.title = title
        self.elements = elements
    }

    /// The section's identity: its ``title``.
    public var id: SectionTitle { title }

    /// The position of the first model.
    public var startIndex: Int { 0 }
    /// The position after the last model.
    public var endIndex: Int { elements.count }

    /// The model at a position.
    public subscript(position: Int) -> Element {
        elements[elements.startIndex + position]
    }
}
