import Foundation
import SwiftData
import Testing

// SwiftData code as apps write it, unchanged: `import SwiftData`, module-qualified names, and a
// `#if canImport(SwiftData)` guard that must not compile to nothing.

#if canImport(SwiftData)
@Model
final class Recipe {
    @Attribute(.unique) var name: String
    var minutes: Int
    var createdAt: Date = Date.now
    @Relationship(deleteRule: .cascade, inverse: \Ingredient.recipe) var ingredients: [Ingredient] = []
    init(name: String, minutes: Int) { self.name = name; self.minutes = minutes }
}

@Model
final class Ingredient {
    var name: String
    var recipe: Recipe?
    init(name: String) { self.name = name }
}

@ModelActor
actor RecipeImporter {
    func importRecipes(_ names: [String]) throws {
        for name in names { modelContext.insert(Recipe(name: name, minutes: name.count)) }
        try modelContext.save()
    }
}
#endif

@Suite struct SwiftDataModuleTests {
    /// The guarded code exists: `canImport(SwiftData)` is true on Linux with this product.
    @Test func canImportSwiftDataIsTrue() {
        #if canImport(SwiftData)
        #expect(Recipe.schemaMetadata.map(\.name) == ["name", "minutes", "createdAt", "ingredients"])
        #else
        Issue.record("canImport(SwiftData) is false")
        #endif
    }

    /// Undo as apps use it (`.modelContainer(for:isUndoEnabled: true)` assigns the main context an
    /// undo manager): a deletion, saved, then undone and saved again.
    @Test @MainActor func theMainContextUndoesASavedDeletion() throws {
        let container = try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.undoManager = UndoManager()
        let tea = Recipe(name: "Tea", minutes: 5)
        tea.ingredients.append(Ingredient(name: "Leaves"))
        context.insert(tea)
        try context.save()
        context.undoManager?.removeAllActions()

        context.delete(tea)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Recipe>()).isEmpty)
        #expect(context.undoManager?.canUndo == true)
        context.undoManager?.undo()
        try context.save()
        let restored = try context.fetch(FetchDescriptor<Recipe>())
        #expect(restored.map(\.name) == ["Tea"])
        #expect(restored.first?.ingredients.map(\.name) == ["Leaves"])
    }

    /// Module-qualified SwiftData names store, fetch, update and reopen a store.
    @Test func moduleQualifiedNamesWork() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Recipes.store")
        let schema = SwiftData.Schema([Recipe.self])
        let container = try SwiftData.ModelContainer(for: schema, configurations: SwiftData.ModelConfiguration(url: url))
        let context = SwiftData.ModelContext(container)
        let soup = Recipe(name: "Soup", minutes: 30)
        soup.ingredients.append(Ingredient(name: "Leek"))
        context.insert(soup)
        try context.save()
        try await RecipeImporter(modelContainer: container).importRecipes(["Salad", "Stew"])

        let reopened = SwiftData.ModelContext(try SwiftData.ModelContainer(for: schema, configurations: SwiftData.ModelConfiguration(url: url)))
        let quick = SwiftData.FetchDescriptor<Recipe>(predicate: #Predicate { $0.minutes < 10 }, sortBy: [SortDescriptor(\.name)])
        #expect(try reopened.fetch(quick).map(\.name) == ["Salad", "Stew"])
        let fetchedSoup = try #require(try reopened.fetch(SwiftData.FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Soup" })).first)
        #expect(fetchedSoup.ingredients.map(\.name) == ["Leek"])
        fetchedSoup.minutes = 25
        try reopened.save()
        let identifier: SwiftData.PersistentIdentifier = fetchedSoup.persistentModelID
        let again = SwiftData.ModelContext(try SwiftData.ModelContainer(for: schema, configurations: SwiftData.ModelConfiguration(url: url)))
        #expect((again.model(for: identifier) as? Recipe)?.minutes == 25)
    }
}
