import ArgumentParser

extension OSD {
    /// The subcommands, in the order `osd --help` lists them. A new command is a type in this
    /// folder, listed here, over a type of OSDKit that does its work.
    static var commands: [any ParsableCommand.Type] {
        [Inspect.self, Query.self, History.self, Export.self, Import.self, SchemaCommand.self, Generate.self, Diagram.self, Verify.self, SyncServerCommand.self]
    }
}
