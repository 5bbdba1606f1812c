import Foundation
import Testing
@testable import OpenSwiftData

/// Reads that fail where SwiftData's API cannot throw (a property getter, a batched collection's
/// subscript) never stop the process: the value reads as a placeholder or loads later, the failure
/// is reported through `OpenSwiftDataDiagnostics`, and the context's next fetch or save throws it.
/// The same holds for an `insert` the context cannot take: reported, and thrown by the next save.
@Suite(.serialized) struct NoTrapTests {
    struct Unreadable: Error, Equatable {}

    /// Collects the reports that mention `subject` while `body` runs.
    func reports(mentioning subject: String, _ body: () throws -> Void) rethrows -> [String] {
        let collected = LockedValue<[String]>([])
        let previous = OpenSwiftDataDiagnostics.handler
        OpenSwiftDataDiagnostics.handler = { message in
            if message.contains(subject) { collected.withValue { $0.append(message) } }
        }
        defer { OpenSwiftDataDiagnostics.handler = previous }
        try body()
        return collected.load()
    }

    /// The first model `predicate` matches, fetched into `context` with only `property` loaded,
    /// after which another context deletes every model `predicate` matches and saves: a model
    /// whose other properties can no longer load.
    func fetchedThenDeletedElsewhere<M: PersistentModel>(
        into context: ModelContext, loading property: PartialKeyPath<M>, where predicate: Predicate<M>? = nil
    ) throws -> M {
        var descriptor = FetchDescriptor<M>(predicate: predicate)
        descriptor.propertiesToFetch = [property]
        let fetched = try #require(try context.fetch(descriptor).first)
        let other = ModelContext(context.container)
        try other.delete(model: M.self, where: predicate)
        try other.save()
        return fetched
    }

    /// `model`, saved in `store` as the only model of its type, then fetched into a new context
    /// with only `property` loaded and deleted elsewhere, after this process forgot the value it
    /// kept of `forgotten`: a property of that type has nothing else to read.
    func onlyModelDeletedElsewhere<M: PersistentModel, Forgotten>(
        _ model: M, in store: TemporaryStore, loading property: PartialKeyPath<M>, forgetting forgotten: Forgotten.Type
    ) throws -> (model: M, context: ModelContext) {
        let container = try store.container(M.self)
        let setup = ModelContext(container)
        setup.insert(model)
        try setup.save()
        PlaceholderSamples.forget(Forgotten.self)
        let context = ModelContext(container)
        return (try fetchedThenDeletedElsewhere(into: context, loading: property), context)
    }

    /// A container on `store` with one saved book, "Dune" (SF, rated 5).
    func containerWithDune(at store: TemporaryStore) throws -> ModelContainer {
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let setup = ModelContext(container)
        setup.insert(LiveBook("Dune", genre: "SF", rating: 5))
        try setup.save()
        return container
    }

    @Test func aPropertyOfARowDeletedElsewhereReadsAsAPlaceholder() throws {
        let store = TemporaryStore()
        let container = try containerWithDune(at: store)

        let context = ModelContext(container)
        var titlesOnly = FetchDescriptor<LiveBook>()
        titlesOnly.propertiesToFetch = [\.title]
        let book = try #require(try context.fetch(titlesOnly).first)
        let other = ModelContext(container)
        try other.delete(model: LiveBook.self)
        try other.save()

        var genre: String?
        let reported = reports(mentioning: "LiveBook.genre") { genre = book.genre }
        #expect(genre == "", "an unloadable String reads as empty, where SwiftData would stop the process")
        #expect(book.isDeleted)
        #expect(reported.count == 1, "the failure is reported: \(reported)")
        #expect(book.title == "Dune", "what was loaded stays")
        #expect(try context.fetch(FetchDescriptor<LiveBook>()).isEmpty, "a deletion is no error: the context's work goes on")
    }

    /// A change to a model whose context is gone is not kept anywhere: it is reported, not dropped
    /// silently, and the store keeps its value.
    @Test func aChangeAfterTheContextIsGoneIsReported() throws {
        let store = TemporaryStore()
        let container = try containerWithDune(at: store)

        let book = try #require(try ModelContext(container).fetch(FetchDescriptor<LiveBook>()).first)
        let reported = reports(mentioning: "LiveBook was changed after the ModelContext") { book.rating = 1 }
        #expect(reported.count == 1, "the change is reported: \(reported)")
        #expect(book.rating == 1, "the object keeps the value it was given")
        #expect(try ModelContext(container).fetch(FetchDescriptor<LiveBook>()).first?.rating == 5)
    }

    /// Every attribute type, custom `Codable` values and a non-optional to-one relationship
    /// included, reads as a placeholder when its row was deleted before it was loaded.
    @Test func everyPropertyTypeOfARowDeletedElsewhereHasAPlaceholder() throws {
        let store = TemporaryStore()
        let container = try store.container(AllTypes.self, Kennel.self, Dog.self)
        let setup = ModelContext(container)
        let model = AllTypes(seed: 7)
        model.address = Address(street: "Main", zip: 12345, tags: ["a"])
        model.optionalAddress = model.address
        model.addresses = [model.address]
        model.licence = Licence(number: 9, holder: "Ann", issued: Date(), code: UUID(), url: URL(string: "https://example.com")!, grade: .provisional)
        setup.insert(model)
        setup.insert(Dog(name: "Rex", kennel: Kennel(name: "North")))
        try setup.save()

        let context = ModelContext(container)
        var intOnly = FetchDescriptor<AllTypes>()
        intOnly.propertiesToFetch = [\.int]
        let fetched = try #require(try context.fetch(intOnly).first)
        var nameOnly = FetchDescriptor<Dog>()
        nameOnly.propertiesToFetch = [\.name]
        let dog = try #require(try context.fetch(nameOnly).first)
        let other = ModelContext(container)
        try other.delete(model: AllTypes.self)
        try other.delete(model: Dog.self)
        try other.save()

        let reported = reports(mentioning: "AllTypes.") {
            #expect(fetched.url == URL(fileURLWithPath: "/"))
            #expect(fetched.uuid == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
            #expect(fetched.decimal == 0)
            #expect(fetched.mood == .happy, "the first case")
            #expect(fetched.address == Address(street: "", zip: 0, tags: []), "a custom Codable struct decodes empty")
            #expect(fetched.optionalAddress == nil)
            #expect(fetched.addresses.isEmpty)
            #expect(fetched.dictionary.isEmpty)
            #expect(fetched.licence.number == 0 && fetched.licence.holder == "" && fetched.licence.url == URL(fileURLWithPath: "/"),
                    "nested standard types take their own placeholders")
            #expect(fetched.licence.grade == .full, "a nested enum that decodes no empty value takes its first case")
        }
        #expect(reported.count >= 9, "each failed read is reported: \(reported.count)")
        #expect(fetched.isDeleted)
        #expect(fetched.int == 7, "what was loaded stays")

        let kennel = dog.kennel
        #expect(kennel.isDeleted, "a non-optional to-one relationship reads as a deleted stand-in")
        #expect(kennel.name == "", "whose properties are placeholders in turn")
        #expect(dog.name == "Rex")
        #expect(try context.fetch(FetchDescriptor<Kennel>()).map(\.name) == ["North"], "the stand-in is not the stored kennel and changes nothing")
        #expect(!context.hasChanges)
    }

    @Test func aBatchThatFailsToLoadGivesPlaceholdersAndTheErrorAtTheNextFetch() throws {
        let store = TemporaryStore()
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let setup = ModelContext(container)
        for number in 0..<10 { setup.insert(LiveBook("book \(number)")) }
        try setup.save()

        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)]), batchSize: 4)
        // Another connection takes the table away after the keys were read: every read fails.
        let other = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try other.execute(#"ALTER TABLE "LiveBook" RENAME TO "Hidden""#)
        var title: String?
        let reported = reports(mentioning: "LiveBook") { title = books[0].title }
        #expect(title == "", "the batch's models are there; what cannot load reads as a placeholder")
        #expect(reported.contains { $0.contains("batch of LiveBook") }, "the failed batch is reported: \(reported)")
        #expect(!books[0].isDeleted, "a failed read is not a deletion")
        try other.execute(#"ALTER TABLE "Hidden" RENAME TO "LiveBook""#)
        #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor<LiveBook>()) }
        #expect(try context.fetch(FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)])).map(\.title) == (0..<10).map { "book \($0)" })
        #expect(books[5].title == "book 5", "later batches load")
    }

    /// A type with no placeholder of its own (an enum with associated values does not decode from
    /// empty values) reads, on a row deleted elsewhere, as a value of the type that this process
    /// stored, instead of stopping the process.
    @Test func aTypeWithoutAPlaceholderReadsAsAValueThisProcessStored() throws {
        let store = TemporaryStore()
        let container = try store.container(Drawing.self)
        let setup = ModelContext(container)
        setup.insert(Drawing(title: "Sun", shape: .circle(radius: 2)))
        try setup.save()

        let context = ModelContext(container)
        let fetched = try fetchedThenDeletedElsewhere(into: context, loading: \Drawing.title)

        let reported = reports(mentioning: "Drawing.shape") {
            #expect(fetched.shape == .circle(radius: 2), "the only value of the type this process stored")
        }
        #expect(!reported.isEmpty, "the failed read is reported")
        #expect(fetched.isDeleted)
        #expect(fetched.title == "Sun")
    }

    /// A `.transformable(by:)` value that is not `Codable` has no empty value either: on a row
    /// deleted elsewhere it reads as a value of the type this process stored, made afresh by its
    /// transformer.
    @Test func aTransformedValueWithoutAPlaceholderReadsAsAValueThisProcessStored() throws {
        let store = TemporaryStore()
        let container = try store.container(Swatch.self)
        let setup = ModelContext(container)
        setup.insert(Swatch(name: "sea", colour: Colour(red: 0, green: 0.5, blue: 0.5)))
        try setup.save()

        let context = ModelContext(container)
        let fetched = try fetchedThenDeletedElsewhere(into: context, loading: \Swatch.name)

        var colour: Colour?
        let reported = reports(mentioning: "Swatch.colour") { colour = fetched.colour }
        #expect(colour != nil && colour !== fetched.colour, "a value made afresh for each read")
        #expect(reported.count >= 1, "the failed read is reported")
        #expect(fetched.isDeleted)
        #expect(fetched.name == "sea")
    }

    /// A type without a placeholder that this process never stored or loaded (here: forgotten)
    /// reads, on a row deleted elsewhere, as a value another stored model of the type holds,
    /// read by a context of its own, instead of stopping the process. Both kinds: a transformed
    /// value that is not `Codable`, and a `Codable` enum with associated values.
    @Test func aTypeThisProcessNeverLoadedReadsAsAValueTheStoreHolds() throws {
        let store = TemporaryStore()
        let container = try store.container(Lighthouse.self)
        let setup = ModelContext(container)
        setup.insert(Lighthouse(name: "North", lamp: Lamp(colour: "red"), mark: .stripes(count: 3)))
        setup.insert(Lighthouse(name: "South", lamp: Lamp(colour: "green"), mark: .stripes(count: 5)))
        try setup.save()
        PlaceholderSamples.forget(Lamp.self)
        PlaceholderSamples.forget(DayMark.self)

        let context = ModelContext(container)
        let north = try fetchedThenDeletedElsewhere(into: context, loading: \Lighthouse.name, where: #Predicate { $0.name == "North" })

        var lamp: Lamp?
        var mark: DayMark?
        let reported = reports(mentioning: "Lighthouse.") {
            lamp = north.lamp
            mark = north.mark
        }
        #expect(lamp == Lamp(colour: "green"), "the value the one remaining lighthouse holds")
        #expect(mark == .stripes(count: 5))
        #expect(!reported.isEmpty, "the failed read is reported")
        #expect(north.isDeleted)
        #expect(north.name == "North")
        #expect(try context.fetch(FetchDescriptor<Lighthouse>()).map(\.name) == ["South"], "the context's work goes on")
    }

    /// A type with no placeholder whose values hold no references (an enum whose cases carry
    /// numbers), never stored or loaded by this process, in a store that holds no other model of
    /// its type, reads as its all-zero value (the first case, zero numbers) instead of stopping
    /// the process.
    @Test func aPlainTypeWithNothingElseToReadReadsAsItsZeroValue() throws {
        let store = TemporaryStore()
        let (fetched, context) = try onlyModelDeletedElsewhere(
            Drawing(title: "Moon", shape: .square(side: 4)), in: store, loading: \Drawing.title, forgetting: DrawnShape.self)

        let reported = reports(mentioning: "Drawing.shape") {
            #expect(fetched.shape == .circle(radius: 0), "the first case, with zero")
        }
        #expect(!reported.isEmpty, "the failed read is reported")
        #expect(fetched.isDeleted)
        #expect(try context.fetchCount(FetchDescriptor<Drawing>()) == 0, "the context's work goes on")
    }

    /// A type with no placeholder and with references (an enum whose cases carry text), never
    /// stored or loaded by this process, in a store that holds no other model of its type: a
    /// property declared with an initial value reads as that value instead of stopping the process.
    @Test func aTypeWithNothingElseToReadReadsAsTheDeclaredInitialValue() throws {
        let store = TemporaryStore()
        let (fetched, context) = try onlyModelDeletedElsewhere(
            Signpost(place: "Harbour", label: .text("Ferries")), in: store, loading: \Signpost.place, forgetting: SignLabel.self)

        var label: SignLabel?
        let reported = reports(mentioning: "Signpost.label") { label = fetched.label }
        #expect(label == .text("Welcome"), "the property's declared initial value")
        #expect(!reported.isEmpty, "the failed read is reported")
        #expect(fetched.isDeleted)
        #expect(try context.fetchCount(FetchDescriptor<Signpost>()) == 0, "the context's work goes on")
    }

    /// A type with no placeholder and with references (an enum whose cases carry text), declared
    /// without an initial value, never stored or loaded by this process, in a store that holds no
    /// other model of its type: it reads as its first case, holding placeholders, instead of
    /// stopping the process.
    @Test func aTypeWithNothingElseToReadReadsAsItsFirstCase() throws {
        let store = TemporaryStore()
        let (fetched, context) = try onlyModelDeletedElsewhere(
            Banner(place: "Quay", label: .arrow(to: "Boats")), in: store, loading: \Banner.place, forgetting: SignLabel.self)

        var label: SignLabel?
        let reported = reports(mentioning: "Banner.label") { label = fetched.label }
        #expect(label == .text(""), "the first case, with an empty text")
        #expect(!reported.isEmpty, "the failed read is reported")
        #expect(fetched.isDeleted)
        #expect(fetched.place == "Quay")
        #expect(try context.fetchCount(FetchDescriptor<Banner>()) == 0, "the context's work goes on")
    }

    /// Inside a `Codable` value, an enum with associated values takes its first case, so the
    /// value has a placeholder of its own; a type of no bits takes its zero value only when it
    /// is an enum of one case (one without cases has no value).
    @Test func placeholdersOfEnumsInsideValuesAndOfTypesOfNoBits() throws {
        #expect(try Placeholder.value(Notice.self) == Notice(heading: "", label: .text(""), shape: .circle(radius: 0)))
        #expect(Placeholder.zeroed(OnlyGrade.self) == .only)
        #expect(Placeholder.zeroed(NoGrade.self) == nil)
        #expect(Placeholder.zeroed(Never.self) == nil)
        #expect(Placeholder.zeroed(LicenceGrade.self) == .full)
        #expect(Placeholder.isEnumOfOneCase(OnlyGrade.self))
        #expect(!Placeholder.isEnumOfOneCase(LicenceGrade.self))
        #expect(!Placeholder.isEnumOfOneCase(Optional<OnlyGrade>.self))
        #expect(!Placeholder.isEnumOfOneCase(EmptyNote.self))
        #expect(try Placeholder.value(EmptyNote.self) == EmptyNote(), "an empty struct decodes from no keys")
    }

    /// A declared initial value comes before a value of the type that another model holds: a
    /// deleted sign does not read as another sign's text.
    @Test func aDeclaredInitialValueComesBeforeAnotherModelsValue() throws {
        let store = TemporaryStore()
        let container = try store.container(Signpost.self)
        let setup = ModelContext(container)
        setup.insert(Signpost(place: "Harbour", label: .text("Ferries")))
        setup.insert(Signpost(place: "Station", label: .arrow(to: "Trains")))
        try setup.save()

        let context = ModelContext(container)
        let harbour = try fetchedThenDeletedElsewhere(into: context, loading: \Signpost.place, where: #Predicate { $0.place == "Harbour" })

        var label: SignLabel?
        let reported = reports(mentioning: "Signpost.label") { label = harbour.label }
        #expect(label == .text("Welcome"), "not Ferries, which this process stored, nor the station's")
        #expect(!reported.isEmpty)
        let station = try #require(try ModelContext(container).fetch(FetchDescriptor<Signpost>()).first)
        #expect(station.label == .arrow(to: "Trains"), "the other sign reads as stored")
    }

    /// A model released by the context itself (an upsert's new model takes over its row) whose
    /// `deinit` looks at its context's models: the identity map is not being changed any more
    /// when the model goes, so the look-up finds it consistent instead of stopping the process.
    @Test func aModelWhoseDeinitFetchesCanBeReleasedByItsContext() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(NameTag.self))
        do {
            context.insert(NameTag(code: "A-1", holder: "Ada"))
            try context.save()
        }
        let before = NameTag.fetchesInDeinit.load()
        context.insert(NameTag(code: "A-1", holder: "Grace"))
        try context.save()
        #expect(NameTag.fetchesInDeinit.load() == before + 1, "the replaced model was released and fetched in its deinit")
        let stored = try ModelContext(try store.container(NameTag.self)).fetch(FetchDescriptor<NameTag>())
        #expect(stored.map(\.holder) == ["Grace"])
    }

    /// `insert` cannot throw: a model of another context is left where it is, the refusal is
    /// reported, and the next save throws it before writing anything (a server keeps running).
    @Test func insertingAModelOfAnotherContextIsRefusedAtTheNextSave() throws {
        let store = TemporaryStore()
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let owner = ModelContext(container)
        let dune = LiveBook("Dune")
        owner.insert(dune)
        let context = ModelContext(container)
        context.insert(LiveBook("Emma"))
        let reported = reports(mentioning: "another ModelContext") { context.insert(dune) }
        #expect(reported.count == 1)
        #expect(!context.insertedModelsArray.contains { $0 === dune })
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.kind == SwiftDataError.modelValidationFailure.kind)
        #expect("\(error.map(String.init(describing:)) ?? "")".contains("LiveBook"), "the error names the model")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<LiveBook>()) == 0, "the refused save wrote nothing")
        // The refusal is thrown once; the context's own insert and the owner's model save as usual.
        try context.save()
        try owner.save()
        let titles = try ModelContext(try store.container(LiveBook.self, LiveAuthor.self))
            .fetch(FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["Dune", "Emma"])
    }

    /// A model of a class the container's schema lacks is not inserted; the next save says so.
    @Test func insertingAModelOutsideTheSchemaIsRefusedAtTheNextSave() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(LiveBook.self, LiveAuthor.self))
        let reported = reports(mentioning: "NameTag") { context.insert(NameTag(code: "B-2", holder: "Ada")) }
        #expect(reported.count == 1)
        #expect(context.insertedModelsArray.isEmpty)
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.kind == SwiftDataError.configurationSchemaNotFoundInContainerSchema.kind)
        context.insert(LiveBook("Emma"))
        try context.save()
        #expect(try ModelContext(try store.container(LiveBook.self, LiveAuthor.self)).fetchCount(FetchDescriptor<LiveBook>()) == 1)
    }
}

/// A store file damaged while a process uses it (an I/O error, a bad disk, another program)
/// gives thrown errors, never a trap.
@Suite struct DamagedFileTests {
    @Test func aFileDamagedMidRunGivesErrorsNotTraps() throws {
        let store = TemporaryStore()
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let context = ModelContext(container)
        for number in 0..<2_000 { context.insert(LiveBook("book \(number)", genre: String(repeating: "g", count: 200))) }
        try context.save()
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

        // Every page after the first few is overwritten with garbage, under the open store.
        let handle = try FileHandle(forWritingTo: store.url)
        try handle.seek(toOffset: 4096 * 2)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096 * 64))
        try handle.close()

        let reopened = #expect(throws: SwiftDataError.self, "opening the damaged file is a clear error") {
            try store.container(LiveBook.self, LiveAuthor.self)
        }
        #expect(reopened == .storeIsCorrupt)
        // The container opened before the damage keeps going, and reports what it finds.
        let reader = ModelContext(container)
        var outcomes: [String] = []
        do {
            let books = try reader.fetch(FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)]))
            outcomes.append("fetched \(books.count)")
        } catch {
            outcomes.append("fetch threw \(type(of: error))")
            #expect(error is SwiftDataError, "\(error)")
        }
        let writer = ModelContext(container)
        writer.insert(LiveBook("after"))
        do {
            try writer.save()
            outcomes.append("saved")
        } catch {
            outcomes.append("save threw")
            #expect(error is SwiftDataError, "\(error)")
            #expect(writer.hasChanges, "a failed save keeps the context's changes")
        }
        #expect(outcomes.contains { $0.contains("threw") }, "the damage was noticed: \(outcomes)")
    }
}

/// A shape: an enum with associated values, which has no placeholder of its own.
enum DrawnShape: Codable, Equatable {
    case circle(radius: Double)
    case square(side: Double)
}

/// A lamp: not `Codable`, so only a value transformer stores it, and it has no placeholder.
final class Lamp: Equatable, @unchecked Sendable {
    let colour: String
    init(colour: String) { self.colour = colour }
    static func == (lhs: Lamp, rhs: Lamp) -> Bool { lhs.colour == rhs.colour }
}

/// Stores a ``Lamp`` as the UTF-8 bytes of its colour.
final class LampTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? { (value as? Lamp).map { Data($0.colour.utf8) } }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).map { Lamp(colour: String(decoding: $0, as: UTF8.self)) }
    }
}

/// A daymark: an enum with associated values, which has no placeholder of its own.
enum DayMark: Codable, Equatable {
    case stripes(count: Int)
    case chequered(rows: Int, columns: Int)
}

/// A model whose properties' types have no placeholder (``NoTrapTests/aTypeThisProcessNeverLoadedReadsAsAValueTheStoreHolds()``).
@Model final class Lighthouse {
    var name: String
    @Attribute(.transformable(by: LampTransformer.self)) var lamp: Lamp
    var mark: DayMark
    init(name: String, lamp: Lamp, mark: DayMark) {
        self.name = name
        self.lamp = lamp
        self.mark = mark
    }
}

/// A model with a property of a type that has no placeholder.
@Model final class Drawing {
    var title: String
    var shape: DrawnShape
    init(title: String, shape: DrawnShape) {
        self.title = title
        self.shape = shape
    }
}

/// What a sign says: an enum whose cases carry text, which has no placeholder and no all-zero value.
enum SignLabel: Codable, Equatable {
    case text(String)
    case arrow(to: String)
}

/// A model with a property of a type that has no placeholder, declared with an initial value.
@Model final class Signpost {
    var place: String
    var label: SignLabel = SignLabel.text("Welcome")
    init(place: String, label: SignLabel) {
        self.place = place
        self.label = label
    }
}

/// A model with a property of a type that has no placeholder, declared without an initial value.
@Model final class Banner {
    var place: String
    var label: SignLabel
    init(place: String, label: SignLabel) {
        self.place = place
        self.label = label
    }
}

/// A `Codable` value holding enums with associated values.
struct Notice: Codable, Equatable {
    var heading: String
    var label: SignLabel
    var shape: DrawnShape
}

/// An enum of one case that decodes from its raw `String`: a type of no bits with one value.
enum OnlyGrade: String, Codable {
    case only
}

/// An enum without cases: a type of no bits without values.
enum NoGrade {}

/// A struct without stored properties.
struct EmptyNote: Codable, Equatable {}

/// A model whose `deinit` fetches the models of its context.
@Model final class NameTag {
    @Attribute(.unique) var code: String
    var holder: String
    init(code: String, holder: String) {
        self.code = code
        self.holder = holder
    }

    /// How many deinits have fetched.
    static let fetchesInDeinit = LockedValue(0)

    deinit {
        guard let context = modelContext else { return }
        if (try? context.fetchCount(FetchDescriptor<NameTag>())) != nil { NameTag.fetchesInDeinit.withValue { $0 += 1 } }
    }
}

/// A custom `Codable` value holding standard types that have placeholders of their own.
struct Licence: Codable, Equatable {
    var number: Int
    var holder: String
    var issued: Date
    var code: UUID
    var url: URL
    /// An enum that decodes from its raw `String` and has no empty case, nor a list of cases.
    var grade: LicenceGrade = .full
}

enum LicenceGrade: String, Codable {
    case full, provisional
}

@Model final class Kennel {
    var name: String
    init(name: String) { self.name = name }
}

/// A model with a non-optional to-one relationship.
@Model final class Dog {
    var name: String
    var kennel: Kennel
    init(name: String, kennel: Kennel) {
        self.name = name
        self.kennel = kennel
    }
}
