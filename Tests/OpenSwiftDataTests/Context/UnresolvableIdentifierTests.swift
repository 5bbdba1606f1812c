import Foundation
import Testing
@testable import OpenSwiftData

/// Identifiers that name no model of the container, as a server may decode them from a request.
@Suite struct UnresolvableIdentifierTests {
    /// Each returns a deleted stand-in of none of the app's classes, instead of stopping the process.
    @Test func modelForAnUnresolvableIdentifierIsADeletedStandIn() throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        let context = ModelContext(container)
        let note = Note(text: "real")
        context.insert(note)
        let unsaved = note.persistentModelID
        try context.save()
        let saved = note.persistentModelID

        let json = String(decoding: try JSONEncoder().encode(saved), as: UTF8.self)
        let unknownEntity = try JSONDecoder().decode(PersistentIdentifier.self, from: Data(json.replacingOccurrences(of: "\"Note\"", with: "\"Ghost\"").utf8))
        let otherStore = PersistentIdentifier(storeIdentifier: "another-store", entityName: "Note", key: .permanent(1))

        let other = ModelContext(container)
        for identifier in [unknownEntity, otherStore, unsaved] {
            let model = other.model(for: identifier)
            #expect(model.isDeleted, "\(identifier)")
            #expect(!(model is Note), "\(identifier)")
            #expect(model.persistentModelID == identifier)
        }
        #expect((other.model(for: saved) as? Note)?.text == "real")
    }
}
