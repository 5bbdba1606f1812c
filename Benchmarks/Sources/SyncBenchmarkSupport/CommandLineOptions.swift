import Foundation

/// Prints a line at once (standard output may be a file or a pipe).
public func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The text after `--name` on the command line, if any.
public func text(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// The number after `--name` on the command line, or `fallback`.
public func option(_ name: String, _ fallback: Int) -> Int {
    text(name).flatMap { Int($0) } ?? fallback
}
