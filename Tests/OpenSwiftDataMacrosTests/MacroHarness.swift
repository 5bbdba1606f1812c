import Foundation
import Testing

/// The result of expanding OpenSwiftData's macros in a piece of source, as the macro plugin
/// prints it (`OpenSwiftDataMacros-tool --expand`, built with the package): the tests run the
/// plugin rather than linking swift-syntax, which would build it a second time.
struct Expansion {
    var source: String
    /// The macros' diagnostics, as `line:column: severity: message`.
    var located: [String]
    /// The syntax errors of the expanded source, annotated; empty when it parses.
    var syntaxErrors: String

    /// The diagnostics' messages.
    var diagnostics: [String] {
        located.map { line in
            let parts = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            return parts.count == 4 ? String(parts[3].dropFirst()) : line
        }
    }

    /// Expands every macro in `source`, recursively; `ofSubclass` expands `@Model` as the compiler
    /// does for a class whose superclass is a model.
    init(_ source: String, ofSubclass: Bool = false, module: String = "App", file: String = "App.swift") {
        var arguments = ["--expand", "--module", module, "--file", file]
        if ofSubclass { arguments.append("--subclass") }
        do {
            let output = try MacroPlugin.run(arguments, input: source).split(separator: "\u{1E}", omittingEmptySubsequences: false)
            guard output.count == 3 else {
                self.init(source: "", located: ["0:0: error: the plugin printed \(output.count) parts, not 3"], syntaxErrors: "")
                return
            }
            self.init(
                source: String(output[0]), located: output[1].split(separator: "\n").map(String.init), syntaxErrors: String(output[2]))
        } catch {
            self.init(source: "", located: ["0:0: error: the plugin did not run: \(error)"], syntaxErrors: "")
        }
    }

    private init(source: String, located: [String], syntaxErrors: String) {
        self.source = source
        self.located = located
        self.syntaxErrors = syntaxErrors
    }

    /// Whether the expanded source contains `fragment`, ignoring differences in whitespace.
    func contains(_ fragment: String) -> Bool {
        squeeze(source).contains(squeeze(fragment))
    }

    private func squeeze(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// The macro plugin the package builds for the host.
enum MacroPlugin {
    /// Where it is: beside the test product.
    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("OpenSwiftDataMacros-tool")
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What the plugin printed for each arguments and input already run: several tests expand the
    /// same source, and each run of the debug-built plugin costs about half a second.
    private static let printed = PrintedOutputs()

    /// Runs the plugin with `arguments` and `input` on its standard input; returns what it printed.
    static func run(_ arguments: [String], input: String) throws -> String {
        let key = arguments + [input]
        if let output = printed[key] { return output }
        let output = try runProcess(arguments, input: input)
        printed[key] = output
        return output
    }

    private static func runProcess(_ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // The plugin reads all of its input before it writes: no pipe fills while the other waits.
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "exit status \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Asserts an exact expansion with no diagnostics and an expanded source that parses, as
/// swift-syntax's `assertMacroExpansion` does: leading and trailing blank lines do not count.
func assertExpansion(_ source: String, expandedSource: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let expansion = Expansion(source, module: "TestModule", file: "test.swift")
    func trimmed(_ text: String) -> Substring {
        var text = Substring(text)
        while text.first?.isNewline == true { text.removeFirst() }
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
    #expect(expansion.syntaxErrors.isEmpty, "the expanded source has syntax errors:\n\(expansion.syntaxErrors)", sourceLocation: sourceLocation)
    #expect(trimmed(expansion.source) == trimmed(expandedSource), "the expansion differs; it is:\n\(expansion.source)", sourceLocation: sourceLocation)
    #expect(expansion.located.isEmpty, "expected no diagnostics, got \(expansion.located)", sourceLocation: sourceLocation)
}

extension Expansion: CustomTestStringConvertible {
    var testDescription: String { "the expansion (\(source.count) characters; diagnostics: \(diagnostics))" }
}

/// The plugin's outputs by arguments and input, shared by the tests running at once.
final class PrintedOutputs: @unchecked Sendable {
    // @unchecked Sendable: `outputs` is only used while `lock` is held.
    private let lock = NSLock()
    private var outputs: [[String]: String] = [:]

    subscript(key: [String]) -> String? {
        get { lock.withLock { outputs[key] } }
        set { lock.withLock { outputs[key] = newValue } }
    }
}
