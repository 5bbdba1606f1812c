import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// A statement the server refuses in the middle of a save (here a trigger that raises an error for
/// one row) fails the whole save, however many of its statements went to the server before the
/// store waited for an answer: nothing of it is written or recorded in the history, the error is
/// the refusal itself (not the "transaction is aborted" of the statements behind it), the context
/// keeps its changes, and the connection is ready for the next save.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresRefusedStatementTests {
    /// Installs a trigger named `name` that makes the server refuse `event` (`INSERT OR UPDATE`,
    /// `DELETE`) on `table` for the rows `condition` selects (through `NEW` or `OLD`), with `message`.
    private func refuse(_ event: String, on table: String, when condition: String, saying message: String, in namespace: String, name: String) throws {
        try PostgresServer.sql("""
            CREATE FUNCTION \(namespace).\(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF \(condition) THEN RAISE EXCEPTION '\(message)'; END IF;
                RETURN COALESCE(NEW, OLD);
            END $$
            """)
        try PostgresServer.sql("CREATE TRIGGER \(name) BEFORE \(event) ON \(namespace).\"\(table)\" FOR EACH ROW EXECUTE FUNCTION \(namespace).\(name)()")
    }

    /// Makes the server refuse any `Poster` row labelled `refused`.
    private func refuseLabelledRows(in namespace: String) throws {
        try refuse("INSERT OR UPDATE", on: "Poster", when: "NEW.label = 'refused'", saying: "refused by the test", in: namespace, name: "refuse")
    }

    private func storedLabels(_ namespace: String) throws -> [String] {
        try PostgresServer.sql("SELECT label FROM \(namespace).\"Poster\" ORDER BY label")
    }

    @Test(arguments: [0, 1, 40, 3_000])
    func aRefusedInsertFailsTheWholeSave(neighbours: Int) throws {
        let configuration = try PostgresServer.freshConfiguration("refused")
        let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(Poster(label: "first save"))
        try context.save()
        try refuseLabelledRows(in: configuration.name)

        for number in 0..<neighbours { context.insert(Poster(label: "before \(number)")) }
        let refused = Poster(label: "refused")
        context.insert(refused)
        for number in 0..<neighbours { context.insert(Poster(label: "after \(number)")) }
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error == .storeFailure)
        #expect(error?.description.contains("refused by the test") == true, "\(String(describing: error))")
        #expect(context.hasChanges, "the failed save keeps the context's changes")
        #expect(try storedLabels(configuration.name) == ["first save"], "nothing of the failed save was written")
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)

        refused.label = "accepted"
        try context.save()
        let reader = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
        #expect(try reader.fetchCount(FetchDescriptor<Poster>()) == 2 * neighbours + 2, "the same changes saved once, whole")
        #expect(try reader.fetchCount(FetchDescriptor<Poster>(predicate: #Predicate { $0.label == "accepted" })) == 1)
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }

    /// The first save on a connection, whose history statement is not prepared on it yet, and
    /// whose statements before that one the server refused: the store rolls the transaction back,
    /// rather than leave the connection in a failed transaction that refuses every later statement.
    @Test func aRefusedSaveThatIsTheConnectionsFirstLeavesItReady() throws {
        let configuration = try PostgresServer.freshConfiguration("refused")
        let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
        try refuseLabelledRows(in: configuration.name)
        // The refused row first, and enough rows after it that its statement goes to the server
        // (and fails) before the save's last statement is prepared.
        let refused = Poster(label: "refused")
        context.insert(refused)
        for number in 0..<3_000 { context.insert(Poster(label: "after \(number)")) }
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.description.contains("refused by the test") == true, "\(String(describing: error))")
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty, "the connection answers")
        refused.label = "accepted"
        try context.save()
        #expect(try storedLabels(configuration.name).count == 3_001)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }

    @Test(arguments: [0, 200])
    func aRefusedUpdateFailsTheWholeSave(otherChanges: Int) throws {
        let configuration = try PostgresServer.freshConfiguration("refused")
        let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        let context = ModelContext(container)
        let posters = (0...otherChanges).map { Poster(label: "poster \($0)") }
        for poster in posters { context.insert(poster) }
        try context.save()
        try refuseLabelledRows(in: configuration.name)

        // Each change is an UPDATE of its own row; the refused one is in the middle.
        for (index, poster) in posters.enumerated() {
            poster.label = index == otherChanges / 2 ? "refused" : "changed \(index)"
        }
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error == .storeFailure)
        #expect(error?.description.contains("refused by the test") == true, "\(String(describing: error))")
        #expect(try storedLabels(configuration.name).allSatisfy { $0.hasPrefix("poster ") }, "no update of the failed save was kept")

        posters[otherChanges / 2].label = "changed \(otherChanges / 2)"
        try context.save()
        #expect(try storedLabels(configuration.name).sorted() == (0...otherChanges).map { "changed \($0)" }.sorted())
    }

    /// Makes the server refuse to delete the `Ticket` coded `guarded`.
    private func guardTicket(in namespace: String) throws {
        try refuse("DELETE", on: "Ticket", when: "OLD.code = 'guarded'", saying: "guarded by the test", in: namespace, name: "guard")
    }

    /// A deletion by predicate, and a cascade from a deleted desk, that the server refuses half-way
    /// delete nothing: every row and every model is as before, and the same deletion saves once
    /// the refusal is gone.
    @Test(arguments: [true, false])
    func aRefusedDeletionDeletesNothing(byPredicate: Bool) throws {
        let configuration = try PostgresServer.freshConfiguration("refused")
        let schema = Schema([Ticket.self, Desk.self])
        let context = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        let desk = Desk(name: "front")
        context.insert(desk)
        for code in ["a", "b", "guarded", "c", "d"] {
            let ticket = Ticket(code: code, title: code, count: 1)
            context.insert(ticket)
            ticket.owner = desk
        }
        try context.save()
        try guardTicket(in: configuration.name)

        if byPredicate {
            try context.delete(model: Ticket.self, where: #Predicate { $0.count > 0 })
        } else {
            context.delete(desk)
        }
        let tickets = desk.tickets
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error == .storeFailure)
        #expect(error?.description.contains("guarded by the test") == true, "\(String(describing: error))")
        #expect(context.hasChanges, "the failed save keeps the deletion")
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM \(configuration.name).\"Ticket\"") == ["5"])
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM \(configuration.name).\"Desk\"") == ["1"])
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
        // Rolling back restores every model; the deletion made again saves once nothing refuses it.
        context.rollback()
        #expect(!context.hasChanges)
        #expect(!desk.isDeleted && tickets.allSatisfy { !$0.isDeleted })
        #expect(tickets.map(\.code).sorted() == ["a", "b", "c", "d", "guarded"])
        #expect(try context.fetchCount(FetchDescriptor<Ticket>()) == 5)

        try PostgresServer.sql("DROP TRIGGER guard ON \(configuration.name).\"Ticket\"")
        if byPredicate {
            try context.delete(model: Ticket.self, where: #Predicate { $0.count > 0 })
        } else {
            context.delete(desk)
        }
        try context.save()
        #expect(tickets.allSatisfy { $0.isDeleted })
        let reader = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        #expect(try reader.fetchCount(FetchDescriptor<Ticket>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Desk>()) == (byPredicate ? 1 : 0))
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }
}
