import Foundation
import OpenSwiftData
import OpenSwiftDataSync

// Notes on two "devices" (two store files), synchronized through a local sync server.
//
// Terminal 1 (the server; see docs/Sync.md):
//   Scripts/with-postgres.sh swift run osd sync-server --postgres '$OSD_POSTGRES_URL' \
//       --schema Examples/SyncNotes/schema.json --port 8080 --tokens Examples/SyncNotes/tokens
// Terminal 2 (the devices):
//   swift run SyncNotes --store phone.store add "Buy milk"
//   swift run SyncNotes --store laptop.store list
//   swift run SyncNotes --store laptop.store watch      # prints the notes as they change

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String, default value: String) -> String {
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return value }
    return arguments[index + 1]
}

let words = Array(arguments.enumerated().filter { index, word in
    !word.hasPrefix("--") && (index == 0 || !arguments[index - 1].hasPrefix("--"))
}.map(\.element))

guard let verb = words.first, ["add", "done", "list", "watch"].contains(verb) else {
    print("usage: SyncNotes [--server URL] [--token TOKEN] [--store FILE] add TEXT | done TEXT | list | watch")
    exit(2)
}

let serverURL = URL(string: option("server", default: "http://127.0.0.1:8080"))!
let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: option("store", default: "notes.store"))))
let engine = SyncEngine(container: container, configuration: SyncConfiguration(serverURL: serverURL, token: option("token", default: "alice-token")))

func printNotes() throws {
    let notes = try ModelContext(container).fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.created)]))
    print(notes.isEmpty ? "(no notes)" : notes.map { "\($0.done ? "[x]" : "[ ]") \($0.text)" }.joined(separator: "\n"))
}

func syncReporting() async {
    do {
        try await engine.sync()
    } catch {
        print("not synchronized: \(error); \(engine.status.pendingChangeCount) change(s) wait to be sent")
    }
}

switch verb {
case "add":
    let context = ModelContext(container)
    context.insert(Note(text: words.dropFirst().joined(separator: " ")))
    try context.save()
    await syncReporting()
    try printNotes()
case "done":
    let text = words.dropFirst().joined(separator: " ")
    let context = ModelContext(container)
    let matching = try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == text }))
    for note in matching { note.done = true }
    try context.save()
    await syncReporting()
    try printNotes()
case "watch":
    engine.start()
    var last = ""
    for await status in engine.statusUpdates {
        let notes = try ModelContext(container).fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.created)]))
        let text = notes.map { "\($0.done ? "[x]" : "[ ]") \($0.text)" }.joined(separator: "\n")
        if text != last {
            print("--- \(Date().formatted(date: .omitted, time: .standard)) ---\n\(text.isEmpty ? "(no notes)" : text)")
            last = text
        }
        if let error = status.lastError { print("not synchronized: \(error)") }
    }
default:
    await syncReporting()
    try printNotes()
}
