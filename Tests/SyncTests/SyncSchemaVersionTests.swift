import Foundation
import Logging
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// The app's models before and after an update that adds a property and a model.
enum NotesV1 {
    @Model
    final class Note {
        @Attribute(.unique) var key: String
        var text: String

        init(key: String, text: String) {
            self.key = key
            self.text = text
        }
    }
}

enum NotesV2 {
    @Model
    final class Note {
        @Attribute(.unique) var key: String
        var text: String
        var rating: Int?
        var pinned: Bool = false

        init(key: String, text: String) {
            self.key = key
            self.text = text
        }
    }

    @Model
    final class Folder {
        var title: String

        init(title: String) {
            self.title = title
        }
    }
}

/// Clients on two versions of the models, one server on the newer.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .serialized)
struct SyncSchemaVersionTests {
    @Test func oldAndNewClientsKeepSyncingAndUnknownPropertiesSurvive() async throws {
        let postgres = try #require(SyncPostgres.url)
        var logger = Logger(label: "sync-test")
        logger.logLevel = .critical
        let server = try SyncServer(
            postgresURL: postgres, name: SyncPostgres.freshName("versions"), schema: Schema([NotesV2.Note.self, NotesV2.Folder.self]),
            authenticator: TokenFileAuthenticator(users: ["t": "u"]), logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let serverURL = try #require(URL(string: "http://127.0.0.1:\(port)"))
        try await server.prepare()
        let configuration = SyncConfiguration(serverURL: serverURL, token: "t")

        let directory = FileManager.default.temporaryDirectory.appending(path: "osd-versions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let oldURL = directory.appending(path: "old.store")
        let old = try ModelContainer(for: Schema([NotesV1.Note.self]), configurations: ModelConfiguration(url: oldURL))
        let new = try ModelContainer(for: Schema([NotesV2.Note.self, NotesV2.Folder.self]), configurations: ModelConfiguration(url: directory.appending(path: "new.store")))
        let oldEngine = SyncEngine(container: old, configuration: configuration)
        let newEngine = SyncEngine(container: new, configuration: configuration)

        let newContext = ModelContext(new)
        let rated = NotesV2.Note(key: "a", text: "Rated")
        rated.rating = 5
        rated.pinned = true
        newContext.insert(rated)
        newContext.insert(NotesV2.Folder(title: "Inbox"))
        try newContext.save()
        try await newEngine.sync()
        try await oldEngine.sync()

        // The old client edits what it knows; the property it does not know is untouched.
        let oldContext = ModelContext(old)
        let seen = try #require(try oldContext.fetch(FetchDescriptor<NotesV1.Note>()).first)
        #expect(seen.text == "Rated")
        seen.text = "Edited on the old app"
        oldContext.insert(NotesV1.Note(key: "b", text: "From the old app"))
        try oldContext.save()
        try await oldEngine.sync()
        try await newEngine.sync()

        let notes = try ModelContext(new).fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.key)]))
        #expect(notes.map(\.text) == ["Edited on the old app", "From the old app"])
        #expect(notes.map(\.rating) == [5, nil])
        #expect(notes.map(\.pinned) == [true, false])

        // The old app is updated: the new property and model arrive on its next sync.
        let updated = try ModelContainer(for: Schema([NotesV2.Note.self, NotesV2.Folder.self]), configurations: ModelConfiguration(url: oldURL))
        try await SyncEngine(container: updated, configuration: configuration).sync()
        let updatedNotes = try ModelContext(updated).fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.key)]))
        #expect(updatedNotes.map(\.rating) == [5, nil])
        #expect(try ModelContext(updated).fetch(FetchDescriptor<NotesV2.Folder>()).map(\.title) == ["Inbox"])
    }
}
