import Foundation

/// A program run to its end on the calling thread, which it blocks meanwhile.
package struct ProgramRun: Sendable {
    /// The program's exit status.
    package let status: Int32
    /// What the program printed on its standard output.
    package let output: Data

    /// Runs `executable` with `arguments` and waits for it to exit, reading its standard output.
    package init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
    }
}
