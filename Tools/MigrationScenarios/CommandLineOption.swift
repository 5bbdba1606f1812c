import Foundation

/// The value after `name` among this process's arguments (`--kills 100` → `"100"`), or `nil`: the
/// options of the kill tools.
public func commandLineOption(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
