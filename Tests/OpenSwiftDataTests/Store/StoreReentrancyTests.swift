import Foundation
import Testing
@testable import OpenSwiftData

/// A one-way to-one relationship to a class with subclasses: resolving it while a fetch reads its
/// rows asks the store which subclass's table holds the key.
@Model
final class Spotlight {
    var label: String
    var item: MediaItem?
    init(label: String, item: MediaItem?) { self.label = label; self.item = item }
}

/// Store calls made while another call is reading rows, on every kind of store.
@Suite struct StoreReentrancyTests {
    enum Kind: String, CaseIterable { case file, inMemory, readOnly }

    static var models: [any PersistentModel.Type] { [Spotlight.self, Picture.self, Clip.self, Album.self] }

    /// Fills a container with spotlights on plain items, pictures and clips.
    func seed(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        for number in 0..<30 {
            let item: MediaItem = switch number % 3 {
            case 0: MediaItem(title: "note \(number)")
            case 1: Picture(title: "picture \(number)", resolution: number)
            default: Clip(title: "clip \(number)", footage: Double(number))
            }
            context.insert(Spotlight(label: "\(number)", item: item))
        }
        try context.save()
    }

    func container(_ kind: Kind, store: TemporaryStore) throws -> ModelContainer {
        switch kind {
        case .inMemory:
            let container = try ModelContainer(for: Schema(Self.models), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            try seed(container)
            return container
        case .file:
            let container = try ModelContainer(for: Schema(Self.models), configurations: [store.configuration()])
            try seed(container)
            return container
        case .readOnly:
            try seed(try ModelContainer(for: Schema(Self.models), configurations: [store.configuration()]))
            return try ModelContainer(for: Schema(Self.models), configurations: [TemporaryStore.defaultBackend.configuration(url: store.url, allowsSave: false)])
        }
    }

    /// Checks that every spotlight resolved to an item of the right class.
    static func check(_ spotlights: [Spotlight]) {
        #expect(spotlights.count == 30)
        for spotlight in spotlights {
            guard let number = Int(spotlight.label), let item = spotlight.item else {
                Issue.record("spotlight \(spotlight.label) lost its item")
                continue
            }
            switch number % 3 {
            case 0: #expect(type(of: item) == MediaItem.self && item.title == "note \(number)")
            case 1: #expect((item as? Picture)?.resolution == number)
            default: #expect((item as? Clip)?.footage == Double(number))
            }
        }
    }

    /// A fetch whose rows resolve relationships to a class hierarchy completes, on every kind of store.
    @Test(arguments: Kind.allCases)
    func resolvingAHierarchyWhileFetchingCompletes(_ kind: Kind) throws {
        let store = TemporaryStore()
        let container = try container(kind, store: store)
        let context = ModelContext(container)
        Self.check(try context.fetch(FetchDescriptor<Spotlight>(sortBy: [SortDescriptor(\.label)])))
    }

    /// Many such fetches at once, more than the store has reader connections, all complete.
    @Test(arguments: Kind.allCases)
    func concurrentFetchesDoNotDrainTheReaders(_ kind: Kind) async throws {
        let store = TemporaryStore()
        let container = try container(kind, store: store)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    let spotlights = try ModelContext(container).fetch(FetchDescriptor<Spotlight>())
                    Self.check(spotlights)
                    return spotlights.count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 30, count: 12))
    }

    /// A store call inside another on the same thread runs on the connection in use, of its own
    /// store only, also inside a call to another store made inside it (taking its own lock
    /// again would wait forever), and once a call returns the one around it is in use again; another thread,
    /// and a task made inside the call, see none in use (a task-local value would be inherited by
    /// the task, which could then use the connection after the call returned, without its lock).
    @Test func aCallInsideAnotherUsesItsConnectionOnItsThreadOnly() async throws {
        let schema = Schema(Self.models)
        let first = try SQLiteStore(url: nil, schema: schema, allowsSave: true)
        let second = try SQLiteStore(url: nil, schema: schema, allowsSave: true)
        let seenByAThread = LockedValue<Bool?>(nil)
        let task = try first.withConnection { outer in
            try first.withConnection { inner in #expect(inner === outer, "the same store: the connection in use") }
            try second.withConnection { other in
                #expect(other !== outer, "another store: its own connection")
                #expect(ConnectionInUse.connection(for: first) === outer)
                try first.withConnection { again in #expect(again === outer) }
            }
            #expect(ConnectionInUse.connection(for: second) == nil, "the inner call's connection is no longer in use")
            #expect(ConnectionInUse.connection(for: first) === outer)
            // A thread of its own (not one of the tasks' threads, which this one must not wait for).
            let looked = DispatchSemaphore(value: 0)
            Thread {
                seenByAThread.store(ConnectionInUse.connection(for: first) != nil)
                looked.signal()
            }.start()
            looked.wait()
            return Task { ConnectionInUse.connection(for: first) != nil }
        }
        #expect(seenByAThread.load() == false, "another thread sees no connection in use")
        #expect(await task.value == false, "a task made inside the call inherits none")
        #expect(ConnectionInUse.connection(for: first) == nil)
    }
}
