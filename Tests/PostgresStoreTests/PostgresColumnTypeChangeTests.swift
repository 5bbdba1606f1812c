import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// Another program changes the type of a column under an open container (`ALTER TABLE … ALTER
/// COLUMN … TYPE`). A type the store still reads (`varchar` for text) goes on being read, though
/// the server refuses the statements prepared before; any other type is refused, naming the model
/// and property, at every read and at the next open, never read as the old type.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresColumnTypeChangeTests {
    @Test func aColumnTurnedToAnotherTypeIsRefusedNotMisread() throws {
        let configuration = try PostgresServer.freshConfiguration("retyped")
        let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        let writer = ModelContext(container)
        writer.insert(Poster(label: "one"))
        try writer.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Poster>()).map(\.label) == ["one"])
        let table = "\(configuration.name).\"Poster\""
        let connection = try PostgresServer.connect()

        try PostgresServer.sql("ALTER TABLE \(table) ALTER COLUMN label TYPE varchar(50)", on: connection)
        for _ in 0..<2 {
            #expect(try ModelContext(container).fetch(FetchDescriptor<Poster>()).map(\.label) == ["one"], "varchar holds text")
        }
        #expect(try ModelContext(ModelContainer(for: Schema([Poster.self]), configurations: [configuration])).fetchCount(FetchDescriptor<Poster>()) == 1)

        try PostgresServer.sql("ALTER TABLE \(table) ALTER COLUMN label TYPE int8 USING 7", on: connection)
        for _ in 0..<2 {
            let refused = #expect(throws: SwiftDataError.self) { try ModelContext(container).fetch(FetchDescriptor<Poster>()) }
            #expect(refused == .storeIsCorrupt)
            #expect(refused?.reason?.contains("Poster.label") == true, "\(String(describing: refused))")
        }
        let reopened = #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        }
        #expect(reopened == .storeIsCorrupt)
        #expect(reopened?.reason?.contains("Poster.label") == true, "\(String(describing: reopened))")

        try PostgresServer.sql("ALTER TABLE \(table) ALTER COLUMN label TYPE text COLLATE \"C\" USING 'one'", on: connection)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Poster>()).map(\.label) == ["one"], "changed back, read again")
        try connection.close().wait()
    }
}
