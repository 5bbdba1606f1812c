// A live list in a terminal: a `ResultsObserver` shows the open tasks of a store, grouped by list
// and by priority, and redraws whenever another process changes them.
//
//   swift run LiveList                        # watches, while a second process it starts writes
//   swift run LiveList watch /tmp/tasks.store # or in two terminals: the list …
//   swift run LiveList write /tmp/tasks.store # … and the writer
import Foundation
import Observation
import OpenSwiftData

@Model
final class TaskItem {
    var title: String
    var list: String
    var priority: Int
    var isDone = false

    init(title: String, list: String, priority: Int) {
        self.title = title
        self.list = list
        self.priority = priority
    }
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "both"
let storeURL = URL(fileURLWithPath: arguments.count > 2 ? arguments[2]
    : FileManager.default.temporaryDirectory.appendingPathComponent("live-list-\(ProcessInfo.processInfo.processIdentifier).store").path)
let container = try ModelContainer(for: TaskItem.self, configurations: ModelConfiguration(url: storeURL))

/// Makes `steps` changes, one save each, a few times a second: new tasks, done tasks, new priorities.
func write(steps: Int) throws {
    let context = ModelContext(container)
    context.author = "writer \(ProcessInfo.processInfo.processIdentifier)"
    let lists = ["Home", "Work", "Errands"]
    let verbs = ["Call", "Buy", "Fix", "Write", "Plan", "Clean"]
    let nouns = ["the plumber", "milk", "the bike", "the report", "the trip", "the garage"]
    for step in 0..<steps {
        let open = try context.fetch(FetchDescriptor<TaskItem>(predicate: #Predicate { !$0.isDone }))
        switch step % 4 {
        case 0, 1:
            let title = "\(verbs.randomElement()!) \(nouns.randomElement()!)"
            context.insert(TaskItem(title: title, list: lists.randomElement()!, priority: Int.random(in: 1...3)))
        case 2:
            open.randomElement()?.isDone = true
        default:
            if let task = open.randomElement() { task.priority = task.priority % 3 + 1 }
        }
        try context.save()
        Thread.sleep(forTimeInterval: 0.3)
    }
}

/// Draws the open tasks, section by section.
@MainActor
func draw(_ observer: ResultsObserver<TaskItem, String>, updates: Int) {
    let terminal = isatty(STDOUT_FILENO) == 1
    var lines = ["Open tasks in \(storeURL.lastPathComponent) — update \(updates)"]
    for section in observer.sections ?? SectionedResults() {
        lines.append("")
        lines.append("\(section.title) (\(section.count))")
        for task in section { lines.append("  \(String(repeating: "!", count: task.priority).padding(toLength: 3, withPad: " ", startingAt: 0)) \(task.title)") }
    }
    let frame = (terminal ? "\u{1B}[2J\u{1B}[H" : "\n") + lines.joined(separator: "\n") + "\n"
    FileHandle.standardOutput.write(Data(frame.utf8))
}

/// Shows the live list until `until` says to stop.
@MainActor
@discardableResult
func watch(until finished: @escaping @MainActor () -> Bool) async throws -> Int {
    let observer = try ResultsObserver<TaskItem, String>(
        filterBy: #Predicate { !$0.isDone }, sortBy: [SortDescriptor(\.priority, order: .reverse), SortDescriptor(\.title)],
        sectionBy: \.list, modelContainer: container)
    var updates = 0
    while !finished() {
        draw(observer, updates: updates)
        // Wait for the observer to say its sections changed (or look again after a while).
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume = OnlyOnce(continuation)
            withObservationTracking { _ = observer.sections } onChange: { resume.run() }
            Task { try? await Task.sleep(nanoseconds: 2_000_000_000); resume.run() }
        }
        updates += 1
    }
    draw(observer, updates: updates)
    return updates
}

/// Resumes a continuation once, whichever of its callers comes first.
final class OnlyOnce: @unchecked Sendable {
    // @unchecked Sendable: `continuation` is only touched while `lock` is held.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }
    func run() { lock.withLock { continuation?.resume(); continuation = nil } }
}

switch mode {
case "write":
    try write(steps: Int(arguments.count > 3 ? arguments[3] : "40") ?? 40)
case "watch":
    try await watch(until: { false })
default:
    // The writer is a second process on the same file: what the list shows comes through the store.
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    writer.arguments = ["write", storeURL.path, "20"]
    try writer.run()
    let updates = try await watch(until: { !writer.isRunning })
    print("""

        Another process made 20 saves; the list redrew \(updates) times (saves that land between two looks \
        at the store, twice a second, show together). To watch longer, in two terminals:
          swift run LiveList watch /tmp/tasks.store
          swift run LiveList write /tmp/tasks.store 100
        """)
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeURL.path + suffix) }
}
