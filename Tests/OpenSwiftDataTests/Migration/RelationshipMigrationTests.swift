import Foundation
import Testing
@testable import OpenSwiftData

/// Version 1 of a kennel app: two models, no relationships.
enum KennelV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Owner.self, Pet.self] }

    @Model
    final class Owner {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model
    final class Pet {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// Version 2 adds relationships: a one-to-many between existing models and a many-to-many with a
/// new model.
enum KennelV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Owner.self, Pet.self, Toy.self] }

    @Model
    final class Owner {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: [Pet] = []
        var toys: [Toy] = []
        init(name: String) { self.name = name }
    }

    @Model
    final class Pet {
        var name: String
        var owner: Owner?
        init(name: String) { self.name = name }
    }

    @Model
    final class Toy {
        var name: String
        @Relationship(inverse: \Owner.toys) var owners: [Owner] = []
        init(name: String) { self.name = name }
    }
}

/// Version 3 renames both relationships, declaring their original names.
enum KennelV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Owner.self, Pet.self, Toy.self] }

    @Model
    final class Owner {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Pet.keeper) var pets: [Pet] = []
        @Relationship(originalName: "toys") var playthings: [Toy] = []
        init(name: String) { self.name = name }
    }

    @Model
    final class Pet {
        var name: String
        @Relationship(originalName: "owner") var keeper: Owner?
        init(name: String) { self.name = name }
    }

    @Model
    final class Toy {
        var name: String
        @Relationship(inverse: \Owner.playthings) var owners: [Owner] = []
        init(name: String) { self.name = name }
    }
}

/// Relationships added and renamed by lightweight migrations, on store files.
struct RelationshipMigrationTests {
    private func container(_ version: any VersionedSchema.Type, at store: TemporaryStore) throws -> ModelContainer {
        try ModelContainer(for: Schema(versionedSchema: version), configurations: [store.configuration()])
    }

    @Test func addingAndRenamingRelationshipsKeepsTheData() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try container(KennelV1.self, at: store))
            context.insert(KennelV1.Owner(name: "Ada"))
            context.insert(KennelV1.Pet(name: "Rex"))
            context.insert(KennelV1.Pet(name: "Tom"))
            try context.save()
        }
        do {
            // V2 adds a foreign key to an existing table, a new model and a link table.
            let context = ModelContext(try container(KennelV2.self, at: store))
            let owner = try #require(try context.fetch(FetchDescriptor<KennelV2.Owner>()).first)
            let pets = try context.fetch(FetchDescriptor<KennelV2.Pet>(sortBy: [SortDescriptor(\.name)]))
            #expect(pets.map(\.name) == ["Rex", "Tom"])
            #expect(pets.allSatisfy { $0.owner == nil }, "a new to-one starts empty")
            #expect(owner.pets.isEmpty)
            owner.pets = pets
            owner.toys.append(KennelV2.Toy(name: "Ball"))
            try context.save()
        }
        do {
            let context = ModelContext(try container(KennelV2.self, at: store))
            let owner = try #require(try context.fetch(FetchDescriptor<KennelV2.Owner>()).first)
            #expect(owner.pets.map(\.name) == ["Rex", "Tom"])
            #expect(owner.toys.map(\.name) == ["Ball"])
        }
        // V3 renames both relationships with their original names: the links survive.
        let context = ModelContext(try container(KennelV3.self, at: store))
        let owner = try #require(try context.fetch(FetchDescriptor<KennelV3.Owner>()).first)
        #expect(owner.pets.map(\.name) == ["Rex", "Tom"])
        #expect(owner.playthings.map(\.name) == ["Ball"])
        let pets = try context.fetch(FetchDescriptor<KennelV3.Pet>(predicate: #Predicate { $0.keeper?.name == "Ada" }))
        #expect(pets.count == 2)
        let toys = try context.fetch(FetchDescriptor<KennelV3.Toy>())
        #expect(toys.first?.owners.map(\.name) == ["Ada"])
    }
}

/// Version 1 of a gallery: one model class.
enum GalleryV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Asset.self] }

    @Model
    class Asset {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// Version 2 adds a subclass.
enum GalleryV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Asset.self, Movie.self] }

    @Model
    class Asset {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model
    final class Movie: Asset {
        var minutes: Int
        init(name: String, minutes: Int) {
            self.minutes = minutes
            super.init(name: name)
        }
    }
}

struct InheritanceMigrationTests {
    @Test func aSubclassAddedLaterGetsKeysNoStoredRowUses() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: GalleryV1.self), configurations: [store.configuration()]))
            for name in ["a", "b", "c"] { context.insert(GalleryV1.Asset(name: name)) }
            try context.save()
        }
        let container = try ModelContainer(for: Schema(versionedSchema: GalleryV2.self), configurations: [store.configuration()])
        let context = ModelContext(container)
        context.insert(GalleryV2.Movie(name: "film", minutes: 90))
        context.insert(GalleryV2.Asset(name: "d"))
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: Schema(versionedSchema: GalleryV2.self), configurations: [store.configuration()]))
        let all = try reopened.fetch(FetchDescriptor<GalleryV2.Asset>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["a", "b", "c", "d", "film"])
        #expect(Set(all.map(\.persistentModelID.primaryKey)).count == 5, "no key is used twice in the hierarchy")
        #expect((all.last as? GalleryV2.Movie)?.minutes == 90)
    }
}
