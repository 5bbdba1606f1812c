import Foundation
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

    /// A new container on the store file (a "reopen" when called again).
    func container(_ types: any PersistentModel.Type..., allowsSave: Bool = true) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
    }

    /// The bytes of the store file and its WAL, to prove a failed open left them alone.
    func snapshot() -> [Data?] {
        ["", "-wal", "-shm"].map { try? Data(contentsOf: URL(fileURLWithPath: url.path + $0)) }
    }
}
