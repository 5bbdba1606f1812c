import Foundation
import Testing
@testable import OpenSwiftData

/// A store whose tables another program removed (the `sqlite3` shell, a cleanup script): every
/// read and save of the model throws `storeIsCorrupt` naming the table, the context keeps its
/// changes, and the store cannot be opened again until the table is back; nothing is changed.
@Suite struct RemovedTableTests {
    let store = TemporaryStore()

    /// A store with a journey, its outings and their labels.
    private func savedTrip() throws -> ModelContainer {
        let container = try store.container(Journey.self, Outing.self, Lodging.self, Label.self)
        let context = ModelContext(container)
        let journey = Journey(name: "Alps")
        let outing = Outing(title: "hike", cost: 3, journey: journey)
        context.insert(outing)
        outing.labels.append(Label(name: "steep"))
        try context.save()
        return container
    }

    private func removeTable(_ table: String) throws {
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("PRAGMA foreign_keys=OFF; DROP TABLE \"\(table)\"")
    }

    @Test func aTableRemovedWhileOpenIsNamedByEveryReadAndSave() throws {
        let container = try savedTrip()
        try removeTable("Outing")
        let context = ModelContext(container)
        for attempt in [
            { _ = try context.fetch(FetchDescriptor<Outing>()) },
            { _ = try context.fetchCount(FetchDescriptor<Outing>()) },
            { _ = try context.fetchIdentifiers(FetchDescriptor<Outing>()) },
        ] as [() throws -> Void] {
            let error = #expect(throws: SwiftDataError.self) { try attempt() }
            #expect(error?.kind == .storeIsCorrupt)
            #expect(error.map { "\($0)" }?.contains("lacks the table Outing: another program removed it") == true, "\(String(describing: error))")
        }
        // The other models read as before.
        #expect(try context.fetch(FetchDescriptor<Journey>()).map(\.name) == ["Alps"])
        // A save that needs the table fails whole, and the context keeps what it was to save.
        let journey = try #require(try context.fetch(FetchDescriptor<Journey>()).first)
        journey.name = "Alps again"
        context.insert(Outing(title: "swim", journey: journey))
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.kind == .storeIsCorrupt)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Journey>()).map(\.name) == ["Alps"])
    }

    @Test(arguments: ["Outing", "osd_link_Label_outings"])
    func aStoreMissingATableIsRefusedAndLeftAsItIs(table: String) throws {
        _ = try savedTrip()
        try removeTable(table)
        let before = try Data(contentsOf: store.url)
        for allowsSave in [true, false] {
            let configuration = ModelConfiguration(url: store.url, allowsSave: allowsSave)
            let error = #expect(throws: SwiftDataError.self) {
                _ = try ModelContainer(for: Journey.self, Outing.self, Lodging.self, Label.self, configurations: configuration)
            }
            #expect(error?.kind == .storeIsCorrupt)
            let message = error.map { "\($0)" } ?? ""
            let named = table == "Outing" ? "lacks the table of the model Outing" : "lacks the link table osd_link_Label_outings of Label"
            #expect(message.contains(named), "\(message)")
        }
        #expect(try Data(contentsOf: store.url) == before)
    }
}
