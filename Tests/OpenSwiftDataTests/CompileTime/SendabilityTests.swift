import Foundation
import Testing

/// Compiles small programs against the built OpenSwiftData module to show what Swift 6's
/// concurrency checking accepts and rejects: containers, schemas and identifiers cross isolation;
/// contexts do not.
@Suite struct SendabilityTests {
    /// The folder with the built `OpenSwiftData.swiftmodule`, beside the test executable.
    static let modules: URL? = {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("OpenSwiftData.swiftmodule").path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()

    /// Compiles `source` through SIL diagnostics (where Swift checks sending and isolation) and
    /// returns the compiler's errors.
    private func errors(compiling source: String) throws -> [String] {
        let modules = try #require(Self.modules, "the built OpenSwiftData module was not found")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Check.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-emit-sil", "-o", "/dev/null", "-swift-version", "6", "-parse-as-library",
                             "-I", modules.path, "-I", root.appendingPathComponent("Sources/CSQLite").path, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").filter { $0.contains("error:") }.map(String.init)
    }

    @Test(.enabled(if: modules != nil))
    func containersSchemasAndIdentifiersCrossIsolation() throws {
        let errors = try errors(compiling: """
            import OpenSwiftData
            func share(_ container: ModelContainer, _ id: PersistentIdentifier) async {
                let schema = container.schema
                await Task.detached {
                    _ = ModelContext(container).model(for: id)
                    _ = schema.entities
                }.value
            }
            """)
        #expect(errors == [])
    }

    @Test(.enabled(if: modules != nil))
    func aContextCannotBeSentToAnotherActorAndUsedAgain() throws {
        let errors = try errors(compiling: """
            import OpenSwiftData
            actor Worker {
                func use(_ context: ModelContext) {}
            }
            func leak(_ container: ModelContainer, worker: Worker) async {
                let context = ModelContext(container)
                await worker.use(context)
                _ = context.hasChanges
            }
            """)
        #expect(errors.contains { $0.contains("sending 'context' risks causing data races") })
    }

    @Test(.enabled(if: modules != nil))
    func theMainContextCannotLeaveTheMainActor() throws {
        let errors = try errors(compiling: """
            import OpenSwiftData
            @MainActor func leak(_ container: ModelContainer) async {
                let context = container.mainContext
                await Task.detached { _ = context.hasChanges }.value
            }
            """)
        #expect(errors.contains { $0.contains("risks causing data races") })
    }

    @Test(.enabled(if: modules != nil))
    func aFetchedModelCannotBeSentToAnotherActorAndUsedAgain() throws {
        let errors = try errors(compiling: """
            import OpenSwiftData
            actor Worker {
                func use(_ model: any PersistentModel) {}
            }
            func leak(_ context: ModelContext, _ id: PersistentIdentifier, worker: Worker) async {
                let model = context.model(for: id)
                await worker.use(model)
                _ = model.hasChanges
            }
            """)
        #expect(errors.contains { $0.contains("risks causing data races") })
    }
}
