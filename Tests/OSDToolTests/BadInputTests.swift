import Foundation
import OpenSwiftData
import Testing

@Suite("osd on bad input")
struct BadInputTests {
    /// Every command that reads a store, with its arguments after the store path.
    static let storeCommands: [[String]] = [
        ["inspect", "STORE"], ["inspect", "STORE", "--json"], ["query", "STORE", "Voyage"], ["schema", "STORE"],
        ["export", "STORE", "--out", "OUT"], ["import", "STORE", "--from", "OUT"], ["verify", "STORE"], ["diagram", "--schema", "STORE"],
    ]

    private func run(_ command: [String], store: String, out: String) throws -> OSDTool.Result {
        try OSDTool.run(command.map { $0 == "STORE" ? store : $0 == "OUT" ? out : $0 })
    }

    /// Runs every store command on `store` and expects each to fail with `message`, leaving the file as it was.
    func expectEveryCommandFails(on store: String, with message: String, in directory: TemporaryDirectory) throws {
        let before = Golden.contents(store)
        try FileManager.default.createDirectory(atPath: directory.path("in"), withIntermediateDirectories: true)
        try Data("[\n{\"_id\":1,\"title\":\"x\"}\n]\n".utf8).write(to: URL(fileURLWithPath: directory.path("in/Stop.json")))
        for command in Self.storeCommands {
            let result = try run(command, store: store, out: directory.path("in"))
            #expect(result.status == 1, "\(command): \(result.status)")
            #expect(result.error.hasPrefix("osd: error: ") && result.error.contains(message), "\(command): \(result.error)")
            #expect(Golden.contents(store) == before, "\(command) changed the file")
        }
    }

    @Test("a missing file")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        try expectEveryCommandFails(on: directory.path("nothing.store"), with: "There is no", in: directory)
        #expect(!FileManager.default.fileExists(atPath: directory.path("nothing.store")))
    }

    @Test("a file that is not a database")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        try Data("hello, not a store\n".utf8).write(to: URL(fileURLWithPath: path))
        try expectEveryCommandFails(on: path, with: "not an SQLite database", in: directory)
    }

    @Test("an SQLite database that is not an OpenSwiftData store")
    func foreignDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.sqlite")
        try StoreFile.createForeignDatabase(at: path)
        try expectEveryCommandFails(on: path, with: "not an OpenSwiftData store", in: directory)
    }

    @Test("a store written by a newer version")
    func newerFormat() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.store")
        try ToolFixtures.makeStore(at: path)
        let file = try StoreFile(path: path, writable: true)
        try file.transaction { try file.run("UPDATE osd_metadata SET value = 99 WHERE key = 'format'") }
        try expectEveryCommandFails(on: path, with: "has format 99", in: directory)
    }

    @Test("a store whose schema record cannot be read")
    func unreadableRecord() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("broken.store")
        try ToolFixtures.makeStore(at: path)
        let file = try StoreFile(path: path, writable: true)
        try file.transaction { try file.run("UPDATE osd_metadata SET value = '{not json' WHERE key = 'schema'") }
        try expectEveryCommandFails(on: path, with: "no readable schema record", in: directory)
    }

    @Test("verify finds relationships to rows that do not exist, and says so in one line")
    func verifyDangling() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("trips.store")
        try ToolFixtures.makeStore(at: path)
        #expect(try OSDTool.run("verify", path).output == "ok: \(path) is sound\n")
        let file = try StoreFile(path: path, writable: true)
        try file.transaction {
            try file.run("UPDATE Stop SET voyage = 999 WHERE _pk IN (1, 2)")
            try file.run("INSERT INTO osd_link_Flag_voyages (owner, target) VALUES (1, 777)")
        }
        let result = try OSDTool.run("verify", path)
        #expect(result.status == 1)
        #expect(result.output == "damaged: \(path): 2 Stop rows have a voyage that does not exist; 1 pairs of Flag.voyages refer to rows that do not exist\n")
    }

    @Test("every command has --help")
    func help() throws {
        for command in [["inspect"], ["query"], ["export"], ["import"], ["schema"], ["verify"], ["diagram"],
                        ["generate"], ["generate", "models"], ["generate", "coredata"], ["generate", "migration"]] {
            let result = try OSDTool.run(command + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.output.contains("USAGE: osd \(command.joined(separator: " "))"), "\(command): \(result.output)")
        }
        let top = try OSDTool.run("--help")
        #expect(top.output.contains("inspect") && top.output.contains("generate"))
    }
}

extension BadInputTests {
    @Test("a store with an unfinished migration is left for the app to finish")
    func unfinishedMigration() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mid.store")
        try ToolFixtures.makeStore(at: path)
        try Data().write(to: URL(fileURLWithPath: path + ".osd-migration"))
        try expectEveryCommandFails(on: path, with: "unfinished migration", in: directory)
    }
}
