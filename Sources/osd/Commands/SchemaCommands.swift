import ArgumentParser
import Foundation
import OSDKit

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift code from schema.json files.",
        subcommands: [Models.self, CoreData.self, Migration.self])

    struct Models: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "@Model classes for a schema, or for the model of a store Apple's Core Data or SwiftData wrote.")

        @Option(help: "The schema.json file.") var schema: String?
        @Option(name: .customLong("from-apple"), help: "A store file Apple's Core Data or SwiftData wrote: classes for the model it caches.") var fromApple: String?
        @Option(help: "The Swift file to write (standard output when omitted).") var out: String?
        @Option(help: "The module to import: OpenSwiftData or SwiftData.") var module = "OpenSwiftData"

        func validate() throws {
            guard (schema == nil) != (fromApple == nil) else { throw ValidationError("Name what to generate from once: --schema FILE or --from-apple STORE.") }
        }

        func run() throws {
            try reportingFailures {
                if let fromApple {
                    try write(try AppleModelsGenerator(appleStoreAt: fromApple, module: module).source(generatedFrom: fileName(fromApple)), to: out)
                    return
                }
                let schema = schema ?? ""
                let document = try SchemaDocument.load(from: schema)
                try write(ModelsGenerator(schema: document, module: module).source(generatedFrom: fileName(schema)), to: out)
            }
        }
    }

    struct CoreData: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "coredata",
            abstract: "NSManagedObject subclasses and an NSManagedObjectModel built in code.")

        @Option(help: "The schema.json file.") var schema: String
        @Option(help: "The Swift file to write (standard output when omitted).") var out: String?

        func run() throws {
            try reportingFailures {
                let document = try SchemaDocument.load(from: schema)
                try write(CoreDataGenerator(schema: document).source(generatedFrom: fileName(schema)), to: out)
            }
        }
    }

    struct Migration: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Two VersionedSchemas and a SchemaMigrationPlan between two schema files.")

        @Option(help: "The old schema.json.") var old: String
        @Option(help: "The new schema.json.") var new: String
        @Option(help: "The Swift file to write (standard output when omitted).") var out: String?
        @Option(help: "The old VersionedSchema's name.") var oldName = "SchemaV1"
        @Option(help: "The new VersionedSchema's name.") var newName = "SchemaV2"
        @Option(help: "The SchemaMigrationPlan's name.") var planName = "MigrationPlan"
        @Option(help: "The old version, as major.minor.patch.") var oldVersion = "1.0.0"
        @Option(help: "The new version, as major.minor.patch.") var newVersion = "2.0.0"
        @Option(help: "The module to import: OpenSwiftData or SwiftData.") var module = "OpenSwiftData"

        func run() throws {
            try reportingFailures {
                var generator = MigrationGenerator(old: try SchemaDocument.load(from: old), new: try SchemaDocument.load(from: new))
                generator.oldName = oldName
                generator.newName = newName
                generator.planName = planName
                generator.oldVersion = try version(oldVersion)
                generator.newVersion = try version(newVersion)
                generator.module = module
                try write(generator.source(oldFile: fileName(old), newFile: fileName(new)), to: out)
            }
        }

        private func version(_ text: String) throws -> String {
            let parts = text.split(separator: ".").map { Int($0) }
            guard parts.count == 3, parts.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                throw ToolError("A version is written major.minor.patch, such as 2.0.0; found \(text.debugDescription).")
            }
            return parts.map { String($0!) }.joined(separator: ", ")
        }
    }
}

struct Diagram: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a schema (a schema.json or a store) as a Mermaid erDiagram.")

    @Option(help: "A schema.json file, a store file, or a PostgreSQL server's URL.") var schema: String
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"
    @Option(help: "The file to write (standard output when omitted).") var out: String?
    @Option(help: "mermaid, or svg when a Mermaid renderer (mmdc) is installed.") var format = "mermaid"

    func run() throws {
        try reportingFailures {
            let document = try SchemaDocument.load(fromSchemaOrStore: schema, name: name)
            let source = MermaidDiagram(schema: document).source()
            switch format {
            case "mermaid", "mmd":
                try write(source, to: out)
            case "svg":
                try renderSVG(source)
            default:
                throw ToolError("Unknown diagram format \(format.debugDescription); use mermaid or svg.")
            }
        }
    }

    private func renderSVG(_ source: String) throws {
        let renderer = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { "\($0)/mmdc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let renderer else {
            throw ToolError("--format svg needs the Mermaid CLI (mmdc), which is not installed; write the .mmd with --format mermaid and render it with mmdc or mermaid.live.")
        }
        guard let out else { throw ToolError("--format svg needs --out FILE.svg.") }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("osd-\(UUID().uuidString).mmd")
        try Data(source.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: renderer)
        process.arguments = ["-i", input.path, "-o", out]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ToolError("mmdc failed with status \(process.terminationStatus).") }
    }
}

/// The last path component, for the generated files' header comments.
func fileName(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }
