import Foundation

/// A progress bar on standard error, drawn only when standard error is a terminal and the work
/// has run for over a second; silent otherwise (pipes, files, tests).
final class Progress {
    private let title: String
    private let total: Int
    private let started = Date()
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var drawn = false
    private var lastDraw = Date.distantPast

    init(_ title: String, total: Int) {
        self.title = title
        self.total = max(total, 1)
    }

    /// Reports that `done` of the total units are finished.
    func update(_ done: Int) {
        guard isTerminal else { return }
        let now = Date()
        guard now.timeIntervalSince(started) > 1, now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        drawn = true
        let fraction = min(Double(done) / Double(total), 1)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(title) [\(bar)] \(done)/\(total)".utf8))
    }

    /// Ends the bar's line, if one was drawn.
    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
