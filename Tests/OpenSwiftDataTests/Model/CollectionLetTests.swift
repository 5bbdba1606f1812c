import Foundation
import Testing
@testable import OpenSwiftData

// `let` properties of collections, optionals and `CaseIterable` enums, as apps declare them.

enum Finish: String, Codable, CaseIterable, Sendable {
    case matte, gloss, satin
}

/// Two versions of one model, the second adding a property with an initial value.
enum PrintVersions {
    @Model
    final class Print {
        let tags: [String]
        let sizes: [String: Double]
        let finish: Finish
        let frame: Finish?
        @Attribute(.transformable(by: ColourTransformer.self)) let tint: Colour?
        var title: String

        init(title: String, tags: [String], finish: Finish, frame: Finish? = nil, tint: Colour? = nil) {
            self.title = title
            self.tags = tags
            self.sizes = ["A4": 29.7, "A3": 42]
            self.finish = finish
            self.frame = frame
            self.tint = tint
        }
    }

    enum Later {
        @Model
        final class Print {
            let tags: [String]
            let sizes: [String: Double]
            let finish: Finish
            let frame: Finish?
            @Attribute(.transformable(by: ColourTransformer.self)) let tint: Colour?
            var title: String
            var copies: Int = 3

            init(title: String) {
                self.title = title
                self.tags = []
                self.sizes = [:]
                self.finish = .satin
                self.frame = nil
                self.tint = nil
            }
        }
    }
}

private typealias Print = PrintVersions.Print

@Suite struct CollectionLetTests {
    let store = TemporaryStore()

    func container(_ backend: Backend) throws -> ModelContainer {
        try store.container(Print.self, backend: backend)
    }

    func savePrints(_ backend: Backend) throws -> [PersistentIdentifier] {
        let context = ModelContext(try container(backend))
        let prints = [
            Print(title: "harbour", tags: ["sea", "boats"], finish: .gloss, frame: .matte, tint: TransformableAttributeTests.teal),
            Print(title: "forest", tags: ["trees"], finish: .matte),
            Print(title: "blank", tags: [], finish: .satin, frame: .gloss),
        ]
        for print in prints { context.insert(print) }
        try context.save()
        return prints.map(\.persistentModelID)
    }

    @Test(arguments: Backend.allCases) func letValuesAreStoredFetchedAndFiltered(_ backend: Backend) throws {
        _ = try savePrints(backend)
        let context = ModelContext(try container(backend))
        let prints = try context.fetch(FetchDescriptor<Print>(sortBy: [SortDescriptor(\.title)]))
        #expect(prints.map(\.title) == ["blank", "forest", "harbour"])
        #expect(prints.map(\.tags) == [[], ["trees"], ["sea", "boats"]])
        #expect(prints.map(\.sizes) == Array(repeating: ["A4": 29.7, "A3": 42], count: 3))
        #expect(prints.map(\.finish) == [.satin, .matte, .gloss])
        #expect(prints.map(\.frame) == [.gloss, nil, .matte])
        #expect(prints.map(\.tint) == [nil, nil, TransformableAttributeTests.teal])

        let gloss = Finish.gloss
        let predicates: [Predicate<Print>] = [
            #Predicate { $0.tags.contains("sea") },
            #Predicate { $0.finish == gloss },
            #Predicate { $0.frame == nil },
            #Predicate { $0.tags.isEmpty || $0.tint != nil },
        ]
        for predicate in predicates {
            let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(\.title))
            #expect(fetched == Set(try prints.filter { try predicate.evaluate($0) }.map(\.title)), "\(predicate)")
            #expect(!fetched.isEmpty)
        }
    }

    /// A model made before its row is read (from its identifier) reads its `let` values from the
    /// store; one whose row another context deleted gets their placeholders (empty, `nil`, the
    /// first case) instead of stopping the process.
    @Test(arguments: Backend.allCases) func aModelMadeFromItsIdentifierHasItsLetValues(_ backend: Backend) throws {
        let ids = try savePrints(backend)
        let container = try container(backend)
        let context = ModelContext(container)
        let harbour = try #require(context.model(for: ids[0]) as? Print)
        #expect(harbour.tags == ["sea", "boats"])
        #expect(harbour.finish == .gloss)
        #expect(harbour.tint == TransformableAttributeTests.teal)

        let other = ModelContext(container)
        try other.delete(model: Print.self, where: #Predicate { $0.title == "forest" })
        try other.save()
        let forest = try #require(context.model(for: ids[1]) as? Print)
        #expect(forest.tags == [])
        #expect(forest.finish == .matte, "the first case")
        #expect(forest.frame == nil)
        #expect(try context.fetchCount(FetchDescriptor<Print>()) == 2)
    }

    /// A lightweight migration that adds a property with an initial value writes that value into
    /// every row without making a model, so the `let`s (which would need values) play no part.
    /// (A custom store migrates its own data.)
    @Test(arguments: Backend.allCases.filter { $0 != .dataStore }) func addingAPropertyWithAnInitialValueKeepsTheLets(_ backend: Backend) throws {
        _ = try savePrints(backend)
        let later = try store.container(PrintVersions.Later.Print.self, backend: backend)
        let prints = try ModelContext(later).fetch(FetchDescriptor<PrintVersions.Later.Print>(sortBy: [SortDescriptor(\.title)]))
        #expect(prints.map(\.copies) == [3, 3, 3])
        #expect(prints.map(\.tags) == [[], ["trees"], ["sea", "boats"]])
        #expect(prints.map(\.finish) == [.satin, .matte, .gloss])
        #expect(prints.last?.tint == TransformableAttributeTests.teal)
    }
}
