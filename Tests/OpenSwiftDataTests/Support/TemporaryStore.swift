import Foundation
import Testing
@testable import OpenSwiftData

/// A store file in a fresh temporary folder, removed when the value is deinitialized.
final class TemporaryStore {
    let folder: URL
    let url: URL

    init(name: String = "Test.store") {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent(name)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The store the suites that do not name one run on: SQLite, or PostgreSQL when the run sets
    /// `OSD_TEST_BACKEND=postgres` (and `OSD_POSTGRES_URL`), as `.ci/run`'s second pass does.
    static let defaultBackend: Backend =
        ProcessInfo.processInfo.environment["OSD_TEST_BACKEND"] == "postgres" && PostgresTestServer.url != nil ? .postgres : .sqlite

    /// A new container on the store file (a "reopen" when called again).
    func container(_ types: any PersistentModel.Type..., allowsSave: Bool = true, backend: Backend = TemporaryStore.defaultBackend) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [backend.configuration(url: url, allowsSave: allowsSave)])
    }

    /// How a helper process (`Tools/HistoryWriter`) names the store in the run's default backend.
    var helperArgument: String {
        switch TemporaryStore.defaultBackend {
        case .postgres: "postgres:" + PostgresTestServer.configuration(for: url).name
        case .sqlite, .dataStore: url.path
        }
    }

    /// The configuration of the store in the run's default backend; `allowsDestructiveMigration`
    /// overrides the backend's default.
    func configuration(allowsDestructiveMigration: Bool? = nil) -> any DataStoreConfiguration {
        TemporaryStore.defaultBackend.configuration(url: url, allowsDestructiveMigration: allowsDestructiveMigration)
    }

    /// The bytes of the store file and its WAL, to prove a failed open or save left them alone.
    /// (Not the `-shm` index: every SQLite reader, even a read-only one, updates its read marks.)
    func snapshot() -> [Data?] {
        ["", "-wal"].map { try? Data(contentsOf: URL(fileURLWithPath: url.path + $0)) }
    }
}

/// A store, a context of a container on it, and one saved item, the start of many context tests.
struct SavedItemFixture {
    let store = TemporaryStore()
    let container: ModelContainer
    let context: ModelContext
    let item: Item

    init() throws {
        container = try store.container(Item.self)
        context = ModelContext(container)
        item = Item(name: "item 1", note: nil, count: 1, optionalCount: nil, score: 0, optionalScore: nil, flag: false,
                    date: Date(timeIntervalSinceReferenceDate: 0), price: 0, big: 0, code: UUID(), mood: .calm)
        context.insert(item)
        try context.save()
    }

    /// Changes an item in a context of its own on another thread, and saves there.
    static func edit(_ id: PersistentIdentifier, in container: ModelContainer, _ edit: @escaping @Sendable (Item) -> Void) async throws {
        try await Task.detached {
            let background = ModelContext(container)
            guard let copy = background.model(for: id) as? Item else { return }
            edit(copy)
            try background.save()
        }.value
    }
}

/// Lets other main-actor work run until `condition` holds, for at most about thirty seconds (a
/// busy machine's other process or thread may take seconds). Tests then assert the condition
/// itself: this bounds the wait, it measures nothing.
@MainActor
func waitUntil(_ condition: @MainActor () -> Bool) async {
    for _ in 0..<3_000 where !condition() {
        await Task.yield()
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
}

extension ModelContainer {
    /// The container's SQLite store, for tests that look at the SQL it runs.
    func sqliteStore() throws -> SQLiteStore {
        try #require(stores.first?.store as? SQLiteStore)
    }
}
