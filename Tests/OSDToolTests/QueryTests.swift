import Foundation
import OpenSwiftData
import Testing

@Suite("osd query")
struct QueryTests {
    /// An expression of the query language and what it means in Swift, over a voyage.
    struct Atom {
        let text: String
        let holds: (Voyage) -> Bool
    }

    /// Conditions over every kind of property, with Swift's semantics written out.
    static var atoms: [Atom] {
        var atoms: [Atom] = []
        for bound in [-1, 2, 3] {
            atoms.append(Atom(text: "rating >= \(bound)") { $0.rating >= bound })
            atoms.append(Atom(text: "rating < \(bound)") { $0.rating < bound })
            atoms.append(Atom(text: "stops.count > \(bound)") { $0.stops.count > bound })
        }
        for value in [0.5, 1.5, -2.0] {
            atoms.append(Atom(text: "score > \(value)") { $0.score > value })
            atoms.append(Atom(text: "score != \(value)") { $0.score != value })
            atoms.append(Atom(text: "score == \(value)") { $0.score == value })
        }
        atoms.append(Atom(text: "score != score") { $0.score != $0.score })
        for needle in ["e", "é", "e\\u{301}", "Pa", "ß", ""] {
            let swiftNeedle = needle.replacingOccurrences(of: "\\u{301}", with: "\u{301}")
            // As `#Predicate` evaluates `contains`: by Characters, and every string contains "".
            // (Foundation's `String.contains(_:)` on Linux says "abc" does not contain "", and
            // that "ee\u{301}" does not contain "é" although "xe\u{301}" does.)
            func contains(_ text: String) -> Bool { QueryTests.contains(Array(text), Array(swiftNeedle)) }
            atoms.append(Atom(text: "name.contains(\"\(needle)\")") { contains($0.name) })
            atoms.append(Atom(text: "name.starts(with: \"\(needle)\")") { $0.name.starts(with: swiftNeedle) })
            atoms.append(Atom(text: "name == \"\(needle)\"") { $0.name == swiftNeedle })
            atoms.append(Atom(text: "name < \"\(needle)\"") { $0.name < swiftNeedle })
            atoms.append(Atom(text: "notes == \"\(needle)\"") { $0.notes == swiftNeedle })
            atoms.append(Atom(text: "notes != \"\(needle)\"") { $0.notes != swiftNeedle })
            atoms.append(Atom(text: "notes.contains(\"\(needle)\")") { $0.notes.map(contains) ?? false })
            atoms.append(Atom(text: "captain.email.starts(with: \"\(needle)\")") { $0.captain?.email.starts(with: swiftNeedle) ?? false })
            atoms.append(Atom(text: "stops.contains(where: title.contains(\"\(needle)\"))") { $0.stops.contains { contains($0.title) } })
        }
        atoms.append(Atom(text: "name.count == 3") { $0.name.count == 3 })
        atoms.append(Atom(text: "notes == nil") { $0.notes == nil })
        atoms.append(Atom(text: "notes != nil") { $0.notes != nil })
        atoms.append(Atom(text: "captain == nil") { $0.captain == nil })
        atoms.append(Atom(text: "captain.email == \"ann@example.com\"") { $0.captain?.email == "ann@example.com" })
        atoms.append(Atom(text: "captain.email != \"ann@example.com\"") { $0.captain?.email != "ann@example.com" })
        atoms.append(Atom(text: "isDone") { $0.isDone })
        atoms.append(Atom(text: "isDone == false") { !$0.isDone })
        atoms.append(Atom(text: "flags.isEmpty") { $0.flags.isEmpty })
        atoms.append(Atom(text: "flags.isEmpty == false") { !$0.flags.isEmpty })
        atoms.append(Atom(text: "flags.contains(where: name == \"red\")") { $0.flags.contains { $0.name == "red" } })
        atoms.append(Atom(text: "budget > 10") { ($0.budget ?? 0) > 10 && $0.budget != nil })
        atoms.append(Atom(text: "budget == nil") { $0.budget == nil })
        atoms.append(Atom(text: "start > \"2026-05-10T00:00:00Z\"") { $0.start > Date(timeIntervalSinceReferenceDate: 800_064_000) })
        atoms.append(Atom(text: "distance > 9223372036854775808") { $0.distance > 9_223_372_036_854_775_808 })
        return atoms
    }

    /// Whether `haystack` holds `needle` as consecutive Characters.
    static func contains(_ haystack: [Character], _ needle: [Character]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return needle.isEmpty || (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    /// A random condition: atoms joined by &&, || and !, as text and as a Swift closure.
    static func randomCondition(depth: Int, using generator: inout some RandomNumberGenerator) -> Atom {
        guard depth > 0, Int.random(in: 0..<3, using: &generator) > 0 else { return atoms.randomElement(using: &generator)! }
        let lhs = randomCondition(depth: depth - 1, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            let rhs = randomCondition(depth: depth - 1, using: &generator)
            return Atom(text: "(\(lhs.text)) && (\(rhs.text))") { lhs.holds($0) && rhs.holds($0) }
        case 1:
            let rhs = randomCondition(depth: depth - 1, using: &generator)
            return Atom(text: "(\(lhs.text)) || (\(rhs.text))") { lhs.holds($0) || rhs.holds($0) }
        default:
            return Atom(text: "!(\(lhs.text))") { !lhs.holds($0) }
        }
    }

    /// A store of voyages with names and notes chosen to tell Swift's text semantics from bytes'.
    static func makeRandomStore(_ configuration: any DataStoreConfiguration, using generator: inout some RandomNumberGenerator) throws -> ModelContext {
        let container = try ModelContainer(for: Schema(ToolFixtures.models), configurations: [configuration])
        let context = ModelContext(container)
        let pieces = ["e", "é", "e\u{301}", "Pa", "ß", "ss", "x", "E", "🇳🇴", " "]
        let sailors = [Sailor(email: "ann@example.com"), Sailor(email: "éva@example.com"), Sailor(email: "e\u{301}mile@example.com")]
        let flags = [Flag(name: "red"), Flag(name: "blue")]
        for index in 0..<60 {
            let name = (0..<Int.random(in: 0...3, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let scores: [Double] = [.nan, 0.5, 1.5, -2.0, 7, -.infinity]
            let voyage = Voyage(
                name: name, start: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(index) * 3_600),
                rating: Int.random(in: -2...5, using: &generator), score: scores.randomElement(using: &generator)!,
                budget: Bool.random(using: &generator) ? Decimal(Int.random(in: 0...20, using: &generator)) : nil,
                notes: Bool.random(using: &generator) ? pieces.randomElement(using: &generator)! : nil,
                isDone: Bool.random(using: &generator))
            voyage.distance = Bool.random(using: &generator) ? UInt64.max - UInt64(index) : UInt64(index)
            context.insert(voyage)
            voyage.captain = Int.random(in: 0..<4, using: &generator) == 0 ? nil : sailors.randomElement(using: &generator)!
            voyage.flags = flags.filter { _ in Bool.random(using: &generator) }
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                voyage.stops.append(Stop(title: pieces.randomElement(using: &generator)!))
            }
        }
        try context.save()
        return context
    }

    @Test("random expressions select exactly the voyages their Swift meaning selects")
    func differential() throws {
        var generator = SystemRandomNumberGenerator()
        let directory = try TemporaryDirectory()
        let store = directory.path("random.store")
        let context = try QueryTests.makeRandomStore(ModelConfiguration(url: URL(fileURLWithPath: store)), using: &generator)
        let voyages = try context.fetch(FetchDescriptor<Voyage>())
        let formatter = ISO8601DateFormatter()
        // One `osd` run per expression: every atom alone, then random combinations.
        var conditions = QueryTests.atoms
        for _ in 0..<40 { conditions.append(QueryTests.randomCondition(depth: 3, using: &generator)) }
        for condition in conditions {
            let result = try OSDTool.run("query", store, "Voyage", "--where", condition.text, "--format", "csv")
            #expect(result.status == 0, "\(condition.text): \(result.error)")
            QueryTests.expectSelection(result.output, of: condition, among: voyages, formatter: formatter)
        }
    }

    /// Expects the CSV `output` of a query to hold exactly the voyages `condition` holds for.
    static func expectSelection(_ output: String, of condition: Atom, among voyages: [Voyage], formatter: ISO8601DateFormatter) {
        // Each voyage starts at a different hour: the start column tells them apart.
        let selected = Set(output.split(separator: "\n").dropFirst().map { String($0.split(separator: ",", omittingEmptySubsequences: false)[2]) })
        let expected = Set(voyages.filter(condition.holds).map { formatter.string(from: $0.start) })
        let differing = voyages.filter { selected.symmetricDifference(expected).contains(formatter.string(from: $0.start)) }
        #expect(selected == expected, "\(condition.text) differs on \(differing.map { ($0.name.unicodeScalars.map { String($0.value, radix: 16) }, $0.notes, $0.score, $0.rating) })")
    }

    @Test("sorting, limits and offsets page through rows as a fetch does")
    func sortAndPage() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let sorted = try OSDTool.run("query", store, "Voyage", "--sort", "name", "--format", "csv")
        let names = sorted.output.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[1]) }
        #expect(names == ["Café tour", "Oslo", "Paris again", "Paris in spring", "Zürich"])
        let page = try OSDTool.run("query", store, "Voyage", "--sort", "captain.email:desc", "--sort", "rating", "--limit", "2", "--offset", "1", "--format", "csv")
        #expect(page.output.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] } == ["1", "2"])
        #expect(try OSDTool.run("query", store, "Voyage", "--where", "rating > 2", "--count").output == "3\n")
        #expect(try OSDTool.run("query", store, "Voyage", "--where", "rating > 2", "--count", "--limit", "2").output == "2\n")
        let json = try OSDTool.run("query", store, "Stop", "--where", "voyage.name == \"Oslo\"", "--format", "json")
        #expect(json.output == "[\n{\"_id\":2,\"title\":\"Oslo stop 0\",\"voyage\":3},\n{\"_id\":3,\"title\":\"Oslo stop 1\",\"voyage\":3}\n]\n")
    }

    @Test("a mistake in an expression points at its column", arguments: [
        ("ratng >= 4", 1, "Voyage has no property ratng (did you mean rating?)"),
        ("rating >= 4 && nme == \"x\"", 16, "Voyage has no property nme (did you mean name?)"),
        ("rating >= \"x\"", 11, "expected a number for rating"),
        ("rating >= 4 &&", 15, "expected a property, a value or ("),
        ("name == \"Paris", 9, "this string has no closing quote"),
        ("name = \"Paris\"", 6, "unexpected character ="),
        ("rating == nil", 1, "this value is never nil"),
        ("stops == nil", 1, "stops is a to-many relationship"),
        ("name.uppercased()", 6, "text has count, isEmpty"),
        ("captain.mail == \"x\"", 9, "Sailor has no property mail"),
    ])
    func syntaxErrors(expression: String, column: Int, message: String) throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let result = try OSDTool.run("query", store, "Voyage", "--where", expression)
        #expect(result.status == 1)
        #expect(result.error.contains(message), "\(result.error)")
        let caretLine = result.error.split(separator: "\n").last.map(String.init) ?? ""
        #expect(caretLine == String(repeating: " ", count: column + 1) + "^", "\(result.error)")
    }

    @Test("an unknown model, format or sort key is a clear error")
    func badArguments() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let model = try OSDTool.run("query", store, "Trip")
        #expect(model.status == 1)
        #expect(model.error.contains("no model named \"Trip\"; its models are Flag, Sailor, Stop, Voyage"))
        let format = try OSDTool.run("query", store, "Voyage", "--format", "xml")
        #expect(format.status == 1 && format.error.contains("Unknown format"))
        let sort = try OSDTool.run("query", store, "Voyage", "--sort", "stops")
        #expect(sort.status == 1 && sort.error.contains("stops is a to-many relationship"))
    }
}
