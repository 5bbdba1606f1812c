import Foundation
import OpenSwiftData
import Testing

/// A store file this process and another use at once: this process with its containers, `osd`
/// with a connection of its own. SQLite's locks on the file are the process's POSIX record locks,
/// which closing any descriptor of the file releases; without them, the other process's last
/// connection would take the file for itself as it closes, and delete the write-ahead log this
/// process's connections go on writing.
@Suite("A store file shared with another process")
struct SharedStoreFileTests {
    private func container(at path: String) throws -> ModelContainer {
        try ModelContainer(for: Schema(ToolFixtures.models), configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    @Test("A second container on a store the process holds keeps its locks: another process's close leaves the log, and later saves reach it")
    func aSecondContainerKeepsTheLocksOfTheFirst() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("shared.store")
        // A row for the other process to add, exported from a store of its own.
        let source = directory.path("source.store")
        do {
            let context = ModelContext(try container(at: source))
            context.insert(Flag(name: "from osd"))
            try context.save()
        }
        #expect(try OSDTool.run("export", source, "--out", directory.path("rows")).status == 0)

        let first = try container(at: store)
        let context = ModelContext(first)
        context.insert(Flag(name: "first"))
        try context.save()
        // An app's second container on the file (a background one, say) looks at the file as it opens.
        let second = try container(at: store)
        // The other process writes, then closes its connection.
        let imported = try OSDTool.run("import", store, "--from", directory.path("rows"))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(FileManager.default.fileExists(atPath: store + "-wal"), "the other process deleted the log this process writes to")
        context.insert(Flag(name: "after"))
        try context.save()
        // Every save reaches the other process, and this process's second container.
        let listed = try OSDTool.run("query", store, "Flag", "--sort", "name", "--format", "csv")
        #expect(listed.status == 0, "\(listed.error)")
        #expect(["after", "first", "from osd"].allSatisfy(listed.output.contains), "\(listed.output)")
        let names = try ModelContext(second).fetch(FetchDescriptor<Flag>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["after", "first", "from osd"])
    }
}
