import Foundation
import OpenSwiftDataToolbox
import Testing

@Suite struct FilesTests {
    @Test func atomicWritesReplaceAndReadsThrowSpecificErrors() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.txt")
        #expect(throws: FileAccessError(.notFound, path: "", reason: "")) { try AtomicFile.read(from: url) }
        #expect(try AtomicFile.readIfPresent(from: url) == nil)
        try AtomicFile.write(Data("first".utf8), to: url)
        try AtomicFile.write(Data("second".utf8), to: url)
        #expect(try AtomicFile.read(from: url) == Data("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.txt"])
        #expect(throws: FileAccessError(.notFound, path: "", reason: "")) {
            try AtomicFile.write(Data(), to: directory.file("missing/notes.txt"))
        }
        try AtomicFile.remove(at: url)
        try AtomicFile.remove(at: url)
    }

    @Test func linuxDirectoriesFollowXDGAndIgnoreRelativePaths() {
        let directories = AppDirectories.forApp(named: "Trips", environment: [
            "HOME": "/home/ada", "XDG_CACHE_HOME": "/var/cache/ada", "XDG_CONFIG_HOME": "relative/ignored", "TMPDIR": "/scratch",
        ])
        #if !canImport(Darwin)
        #expect(directories.caches.path == "/var/cache/ada/Trips")
        #expect(directories.preferences.path == "/home/ada/.config/Trips")
        #expect(directories.applicationSupport.path == "/home/ada/.local/share/Trips")
        #expect(directories.documents.path == "/home/ada/Documents")
        #expect(directories.temporary.path == "/scratch")
        #else
        #expect(directories.caches.path.hasSuffix("Trips"))
        #endif
    }

    @Test func rootedDirectoriesAreCreatedOnRequest() throws {
        let directory = try TemporaryDirectory()
        let directories = AppDirectories.rooted(at: directory.url.appendingPathComponent("app"))
        #expect(!FileManager.default.fileExists(atPath: directories.caches.path))
        try directories.createDirectories()
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directories.applicationSupport.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}

@Suite struct ToolboxKillTests {
    /// The preferences file and the disk cache, their writers killed with SIGKILL at random moments
    /// (`Tools/ToolboxKill`; `swift run ToolboxKill --kills 1000` runs the full count).
    @Test func writersKilledAtRandomMomentsLeaveWholeFiles() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ToolboxKill")
        process.arguments = ["--kills", "10"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("\n0 violations"), "\(text)")
        #expect(!text.contains("last counter 0\n"), "the preferences writer got to write: \(text)")
    }
}
