import ArgumentParser
import Foundation
import OSDKit

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's models, attributes, relationships, indexes, row counts and sizes.")

    @Argument(help: "The store file, or a PostgreSQL server's URL (postgres://user@host/database).") var store: String
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"
    @Flag(help: "Print JSON for machines.") var json = false

    func run() throws {
        try reportingFailures {
            let inspector = StoreInspector(path: store, name: name)
            printLine(json ? try inspector.json() : try inspector.text())
        }
    }
}

struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the rows of one model that match an expression.",
        discussion: """
            EXPR is written as a #Predicate body over the stored schema, with the same semantics:
              rating >= 4 && name.contains("Paris") && trip.name == "x" && tags.isEmpty == false && due == nil
            Paths follow to-one relationships (trip.name); to-many ones have isEmpty, count and
            contains(where: EXPR); text has contains, starts(with:), hasPrefix, localizedStandardContains,
            count and isEmpty. Dates are written as ISO 8601 strings, UUIDs and Decimals as strings.
            On PostgreSQL the text functions contains, starts(with:), hasPrefix, localizedStandardContains
            and count run in Swift in the store, with the app's models, and osd refuses them.
            """)

    @Argument(help: "The store file, or a PostgreSQL server's URL (postgres://user@host/database).") var store: String
    @Argument(help: "The model to query.") var model: String
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"
    @Option(name: .customLong("where"), help: "Only rows for which EXPR is true.") var expression: String?
    @Option(help: "Sort by KEY, ascending, or KEY:desc; repeat for more keys.") var sort: [String] = []
    @Option(help: "At most N rows.") var limit: Int?
    @Option(help: "Skip the first N rows.") var offset: Int?
    @Flag(help: "Print the number of matching rows only.") var count = false
    @Option(help: "table, json or csv.") var format = "table"

    func run() throws {
        try reportingFailures {
            let query = StoreQuery(model: model, whereExpression: expression, sort: sort, limit: limit, offset: offset)
            if count {
                printLine(String(try query.count(storeAt: store, name: name)))
            } else {
                try query.run(storeAt: store, name: name, format: format, output: printLine)
            }
        }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write every row of a store's models to files, one per model.",
        discussion: "JSON files hold an array with one object per line, relationships by _id: the form `osd import` reads.")

    @Argument(help: "The store file, or a PostgreSQL server's URL (postgres://user@host/database).") var store: String
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"
    @Option(help: "Only these models, separated by commas.") var models: String?
    @Option(help: "json or csv.") var format = "json"
    @Option(help: "The directory to write to (created if needed).") var out: String

    func run() throws {
        try reportingFailures {
            let names = models.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            let written = try StoreExport(models: names, format: format, directory: URL(fileURLWithPath: out)).run(storeAt: store, name: name)
            for (model, rows) in written { printLine("\(model): \(rows) rows") }
        }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add rows to a store, in one transaction: from `osd export` JSON files, or from a store Apple's Core Data or SwiftData wrote.",
        discussion: """
            All or nothing: a bad file is named with its line and field, and an Apple store's model, property or \
            relationship with no home in the store's models is named, and nothing is written. The Apple store is \
            never modified, and importing it a second time imports nothing.
            """)

    @Argument(help: "The store file, or a PostgreSQL server's URL (postgres://user@host/database).") var store: String?
    @Option(help: "The store to import into, as the STORE argument names it.") var into: String?
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"
    @Option(help: "The directory of Model.json files.") var from: String?
    @Option(name: .customLong("from-apple"), help: "A store file Apple's Core Data or SwiftData wrote.") var fromApple: String?
    @Option(help: "With --from-apple: models and Model.property names to leave out, comma-separated.") var ignore: String?
    @Option(name: .customLong("archived-as-json"), help: "With --from-apple: transformable Model.property names, comma-separated, whose values are keyed archives (NSSecureUnarchiveFromData) to import as the JSON a Codable property of the same shape keeps.")
    var archivedAsJSON: String?

    func validate() throws {
        guard (store == nil) != (into == nil) else { throw ValidationError("Name the store to import into once: STORE or --into.") }
        guard (from == nil) != (fromApple == nil) else { throw ValidationError("Name what to import once: --from DIRECTORY or --from-apple STORE.") }
    }

    func run() throws {
        try reportingFailures {
            let target = into ?? store ?? ""
            if let fromApple {
                func names(_ list: String?) -> Set<String> {
                    Set((list ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
                }
                guard let imported = try AppleImport.run(
                    appleStore: fromApple, storeAt: target, name: name, ignoring: names(ignore), archivedAsJSON: names(archivedAsJSON))
                else {
                    printLine("\(fromApple) was imported into \(target) before: nothing to do")
                    return
                }
                for (model, rows) in imported { printLine("\(model): \(rows) rows imported") }
                return
            }
            let imported = try StoreImport(directory: URL(fileURLWithPath: from ?? "")).run(storeAt: target, name: name)
            for (model, rows) in imported { printLine("\(model): \(rows) rows imported") }
        }
    }
}

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the schema a store records, as schema.json.")

    @Argument(help: "The store file, or a PostgreSQL server's URL (postgres://user@host/database).") var store: String
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"
    @Flag(help: "Print JSON (the only format; accepted for clarity).") var json = false

    func run() throws {
        try reportingFailures {
            printLine(try SchemaDocument(storeAt: store, name: name).json())
        }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a store: integrity, relationships, and tables against its recorded schema.",
        discussion: "Prints one line and exits 0 when the store is sound, 1 otherwise.")

    @Argument(help: "The store file, or a PostgreSQL server's URL (postgres://user@host/database).") var store: String
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"

    func run() throws {
        try reportingFailures {
            let (checked, problems) = try StoreVerifier(store: store, name: name).check()
            if problems.isEmpty {
                printLine("ok: \(checked) is sound")
            } else {
                printLine("damaged: \(checked): \(problems.joined(separator: "; "))")
                throw ExitCode.failure
            }
        }
    }
}
