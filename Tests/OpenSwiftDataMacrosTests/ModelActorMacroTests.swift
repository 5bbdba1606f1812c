import Testing

/// What `@ModelActor` generates, as SwiftData's macro does.
@Suite struct ModelActorMacroTests {
    @Test func addsTheExecutorTheContainerAndTheInitializer() {
        assertExpansion(
            """
            @ModelActor
            actor Importer {
                func run() {}
            }
            """,
            expandedSource: """
            actor Importer {
                func run() {}

                nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor

                nonisolated let modelContainer: OpenSwiftData.ModelContainer

                init(modelContainer: OpenSwiftData.ModelContainer) {
                    let modelContext = OpenSwiftData.ModelContext(modelContainer)
                    self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Importer: OpenSwiftData.ModelActor {}
            """)
    }

    @Test func publicActorsGetPublicMembers() {
        let expansion = Expansion("@ModelActor public actor Importer {}")
        #expect(expansion.contains("public nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor"))
        #expect(expansion.contains("public init(modelContainer: OpenSwiftData.ModelContainer)"))
    }

    @Test func refusesAClass() {
        let expansion = Expansion("@ModelActor final class Importer {}")
        #expect(expansion.diagnostics == ["@ModelActor can only be applied to an actor"])
    }
}
