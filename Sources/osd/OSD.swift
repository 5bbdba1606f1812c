import ArgumentParser
import Foundation
import OSDKit
import OpenSwiftData

/// `osd`: look inside OpenSwiftData stores and work with schemas, without the app's model classes.
@main
struct OSD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "osd",
        abstract: "Inspect, query, export and import OpenSwiftData stores and read their history; generate models, migrations and diagrams from schemas.",
        discussion: "Every command reads the schema a store records, so it needs no model classes. See docs/osd.md.",
        subcommands: commands
    )

    /// Runs the command asked for. A command-line tool's waits for its store hold a thread that
    /// nothing else needs, so the store's warning about waits on Swift's shared threads (meant
    /// for servers) stays silent.
    static func main() async {
        await BlockingCallSite.$isSilenced.withValue(true) {
            do {
                var command = try parseAsRoot()
                if var asynchronous = command as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try command.run()
                }
            } catch {
                exit(withError: error)
            }
        }
    }
}

/// Runs a command's work, printing any failure as one line on standard error and exiting 1.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        let message = (error as? ToolError)?.message ?? "\(error)"
        FileHandle.standardError.write(Data("osd: error: \(message)\n".utf8))
        throw ExitCode.failure
    }
}

/// Writes `text` to `path` atomically, or to standard output when `path` is `nil`.
func write(_ text: String, to path: String?) throws {
    guard let path else {
        FileHandle.standardOutput.write(Data(text.utf8))
        return
    }
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw ToolError("Cannot write \(path): \(error.localizedDescription)")
    }
}

/// Prints one line to standard output.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
