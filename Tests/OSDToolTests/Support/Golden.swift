import Foundation
import Testing

/// Golden files beside the tests: what a command's output must be, byte for byte. Run with
/// `OSD_UPDATE_GOLDEN=1` to rewrite them from the current output (then review the diff).
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The path of a file under `Tests/OSDToolTests/`.
    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    /// Expects `actual` to equal the golden file at `relative` (or rewrites it when asked).
    static func expect(_ actual: String, equals relative: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = path(relative)
        if ProcessInfo.processInfo.environment["OSD_UPDATE_GOLDEN"] == "1" {
            try Data(actual.utf8).write(to: URL(fileURLWithPath: path))
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(actual == expected, "output differs from \(relative); run with OSD_UPDATE_GOLDEN=1 to see the diff", sourceLocation: sourceLocation)
    }

    /// A file's bytes, to check that a failed command changed nothing.
    static func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
}
