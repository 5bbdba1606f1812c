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

    /// What compiling a program gave: the compiler's exit status and its error lines.
    struct Compilation {
        var status: Int32
        var errors: [String]
        /// Whether the compiler accepted the program: exit status 0 and no error.
        var succeeded: Bool { status == 0 && errors.isEmpty }
        /// Whether the compiler rejected the program with an error containing `message`.
        func rejected(with message: String) -> Bool { status != 0 && errors.contains { $0.contains(message) } }
    }

    /// Compiles `source` through SIL diagnostics (where Swift checks sending and isolation).
    private func compile(_ source: String, flags: [String] = []) throws -> Compilation {
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
                             "-I", modules.path, "-I", root.appendingPathComponent("Sources/CSQLite").path]
            + flags + [file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let errors = text.split(separator: "\n").filter { $0.contains("error:") }.map(String.init)
        return Compilation(status: process.terminationStatus, errors: errors)
    }

    @Test(.enabled(if: modules != nil))
    func containersSchemasAndIdentifiersCrossIsolation() throws {
        let result = try compile("""
            import OpenSwiftData
            func share(_ container: ModelContainer, _ id: PersistentIdentifier) async {
                let schema = container.schema
                await Task.detached {
                    _ = ModelContext(container).model(for: id)
                    _ = schema.entities
                }.value
            }
            """)
        #expect(result.succeeded, "\(result.errors)")
    }

    /// In a module whose default isolation is the main actor (with the upcoming features Xcode's
    /// new projects turn on), `@Model nonisolated` classes are usable on the main actor, in a
    /// `@ModelActor`, in `#Predicate` and in `SortDescriptor`.
    @Test(.enabled(if: modules != nil))
    func nonisolatedModelsWorkWhereTheMainActorIsTheDefault() throws {
        let macros = try #require(Self.modules).deletingLastPathComponent().appendingPathComponent("OpenSwiftDataMacros-tool")
        try #require(FileManager.default.fileExists(atPath: macros.path), "the built macro plugin was not found")
        let result = try compile("""
            import Foundation
            import OpenSwiftData

            @Model nonisolated final class Trip {
                var name: String
                @Relationship(deleteRule: .cascade, inverse: \\Stop.trip) var stops: [Stop] = []
                init(name: String) { self.name = name }
            }

            @Model nonisolated final class Stop {
                var place: String
                var trip: Trip?
                init(place: String) { self.place = place }
            }

            @ModelActor actor Importer {
                func add(_ name: String) throws -> [String] {
                    modelContext.insert(Trip(name: name))
                    try modelContext.save()
                    let named = FetchDescriptor<Trip>(predicate: #Predicate { $0.name != "" }, sortBy: [SortDescriptor(\\.name)])
                    return try modelContext.fetch(named).map(\\.name)
                }
            }

            func showTrips(_ container: ModelContainer) throws -> [String] {
                try container.mainContext.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\\.name)])).map(\\.name)
            }
            """, flags: ["-load-plugin-executable", macros.path + "#OpenSwiftDataMacros", "-default-isolation", "MainActor",
                        "-enable-upcoming-feature", "InferIsolatedConformances",
                        "-enable-upcoming-feature", "NonisolatedNonsendingByDefault"])
        #expect(result.succeeded, "\(result.errors.prefix(3))")
    }

    /// A model's metatype is `Sendable` (`PersistentModel` refines `SendableMetatype`, as
    /// SwiftData's does): generic code sends `T.Type` to another task without a warning.
    @Test(.enabled(if: modules != nil))
    func genericCodeSendsAModelTypeToAnotherTaskWithoutWarnings() throws {
        let result = try compile("""
            import OpenSwiftData
            func count<T: PersistentModel>(_ type: T.Type, in container: ModelContainer) async throws -> Int {
                try await Task.detached {
                    let descriptor = FetchDescriptor<T>()
                    return try ModelContext(container).fetchCount(descriptor)
                }.value
            }
            actor Counter {
                func count<T: PersistentModel>(of type: T.Type, in container: ModelContainer) throws -> Int {
                    try ModelContext(container).fetchCount(FetchDescriptor<T>())
                }
            }
            func ask<T: PersistentModel>(_ counter: Counter, _ type: T.Type, _ container: ModelContainer) async throws -> Int {
                try await counter.count(of: type, in: container)
            }
            """, flags: ["-warnings-as-errors"])
        #expect(result.succeeded, "\(result.errors.prefix(3))")
    }

    /// `ModelContext.init` is a function of the container alone, as SwiftData's is, so code that
    /// stores or passes the initializer compiles.
    @Test(.enabled(if: modules != nil))
    func theContextInitializerIsAFunctionOfTheContainer() throws {
        let result = try compile("""
            import OpenSwiftData
            struct Database: Sendable {
                let container: ModelContainer
                let makeContext: @Sendable (ModelContainer) -> ModelContext
                init(container: ModelContainer, factory: (@Sendable (ModelContainer) -> ModelContext)? = nil) {
                    self.container = container
                    self.makeContext = factory ?? ModelContext.init
                }
                func context() -> ModelContext { makeContext(container) }
            }
            func open(_ container: ModelContainer, with factory: ((ModelContainer) -> ModelContext)? = nil) -> ModelContext {
                let make: (ModelContainer) -> ModelContext = factory ?? ModelContext.init
                return make(container)
            }
            """, flags: ["-warnings-as-errors"])
        #expect(result.succeeded, "\(result.errors.prefix(3))")
    }

    @Test(.enabled(if: modules != nil))
    func aContextCannotBeSentToAnotherActorAndUsedAgain() throws {
        let result = try compile("""
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
        #expect(result.rejected(with: "sending 'context' risks causing data races"), "\(result.errors)")
    }

    @Test(.enabled(if: modules != nil))
    func theMainContextCannotLeaveTheMainActor() throws {
        let result = try compile("""
            import OpenSwiftData
            @MainActor func leak(_ container: ModelContainer) async {
                let context = container.mainContext
                await Task.detached { _ = context.hasChanges }.value
            }
            """)
        #expect(result.rejected(with: "risks causing data races"), "\(result.errors)")
    }

    @Test(.enabled(if: modules != nil))
    func aFetchedModelCannotBeSentToAnotherActorAndUsedAgain() throws {
        let result = try compile("""
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
        #expect(result.rejected(with: "risks causing data races"), "\(result.errors)")
    }
}
