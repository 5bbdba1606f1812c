import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// A model whose deletions keep values in the history, of types that are stored unlike their text.
@Model
final class Ticket {
    @Attribute(.preserveValueOnDeletion) var code: String
    @Attribute(.preserveValueOnDeletion) var paid: Bool
    @Attribute(.preserveValueOnDeletion) var price: Decimal
    var seat: Int

    init(code: String, paid: Bool, price: Decimal, seat: Int) {
        self.code = code
        self.paid = paid
        self.price = price
        self.seat = seat
    }
}

/// `osd history` prints what the app's own `fetchHistory` reads: every transaction with its
/// number, time, author and process, and every change with its model, key, the properties an update
/// changed and the values a deletion preserved, on a store file and on PostgreSQL.
@Suite("osd history")
struct HistoryTests {
    static var models: [any PersistentModel.Type] { ToolFixtures.models + [Ticket.self] }

    /// One change as both sides describe it.
    struct Change: Hashable, Comparable {
        var kind: String
        var model: String
        var key: Int64
        var properties: [String]
        var preserved: [String: String]

        static func < (lhs: Change, rhs: Change) -> Bool {
            if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
            if lhs.model != rhs.model { return lhs.model < rhs.model }
            return lhs.key < rhs.key
        }
    }

    /// Saves random inserts, updates and deletions of voyages, their stops and tickets, by random
    /// authors, and returns the context.
    static func saveRandomChanges(_ configuration: any DataStoreConfiguration, rounds: Int) throws -> ModelContext {
        var generator = SystemRandomNumberGenerator()
        let container = try ModelContainer(for: Schema(models), configurations: [configuration])
        let context = ModelContext(container)
        let authors: [String?] = [nil, "app", "sync \"eu\"", "importer"]
        var serial = 0
        for _ in 0..<rounds {
            context.author = authors[Int.random(in: 0..<authors.count, using: &generator)]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                serial += 1
                let voyage = Voyage(name: "v\(serial)", start: Date(timeIntervalSinceReferenceDate: Double(serial)), rating: serial, score: 1)
                context.insert(voyage)
                for stop in 0..<Int.random(in: 0...2, using: &generator) { voyage.stops.append(Stop(title: "s\(serial).\(stop)")) }
                context.insert(Ticket(code: "T\(serial)", paid: Bool.random(using: &generator), price: Decimal(serial) / 4, seat: serial))
            }
            for voyage in try context.fetch(FetchDescriptor<Voyage>()) where Int.random(in: 0..<4, using: &generator) == 0 {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: voyage.rating += 1
                case 1: voyage.name += "'"
                case 2:
                    voyage.notes = voyage.notes == nil ? "n" : nil
                    voyage.isDone.toggle()
                default: context.delete(voyage)   // its stops too, by the cascade rule
                }
            }
            for ticket in try context.fetch(FetchDescriptor<Ticket>()) where Int.random(in: 0..<5, using: &generator) == 0 {
                if Bool.random(using: &generator) { context.delete(ticket) } else { ticket.seat += 100 }
            }
            try context.save()
        }
        return context
    }

    /// The names of the properties an update changed.
    private static func names<M: PersistentModel>(_ attributes: [any PartialKeyPath<M> & Sendable], of model: M.Type) -> [String] {
        M.schemaMetadata.filter { metadata in attributes.contains { $0 == metadata.keypath } }.map(\.name)
    }

    /// The row key of a saved model's identifier (`p42` is 42).
    private static func key(_ id: PersistentIdentifier) -> Int64 {
        Int64(id.id.description.dropFirst()) ?? -1
    }

    /// One change as the app reads it.
    private static func change(_ change: HistoryChange) -> Change {
        var result = Change(kind: "?", model: "", key: 0, properties: [], preserved: [:])
        switch change {
        case .insert(let insert):
            result.kind = "insert"
            result.model = insert.changedPersistentIdentifier.entityName
            result.key = key(insert.changedPersistentIdentifier)
        case .update(let update):
            result.kind = "update"
            result.model = update.changedPersistentIdentifier.entityName
            result.key = key(update.changedPersistentIdentifier)
            if let update = update as? DefaultHistoryUpdate<Voyage> { result.properties = names(update.updatedAttributes, of: Voyage.self) }
            if let update = update as? DefaultHistoryUpdate<Stop> { result.properties = names(update.updatedAttributes, of: Stop.self) }
            if let update = update as? DefaultHistoryUpdate<Ticket> { result.properties = names(update.updatedAttributes, of: Ticket.self) }
        case .delete(let delete):
            result.kind = "delete"
            result.model = delete.changedPersistentIdentifier.entityName
            result.key = key(delete.changedPersistentIdentifier)
            if let delete = delete as? DefaultHistoryDelete<Ticket> {
                let tombstone = delete.tombstone
                if let code = tombstone[\.code] { result.preserved["code"] = "\"\(code)\"" }
                if let paid = tombstone[\.paid] { result.preserved["paid"] = "\(paid)" }
                if let price = tombstone[\.price] { result.preserved["price"] = "\"\(price)\"" }
            }
        @unknown default:
            break
        }
        return result
    }

    /// The transactions the app reads, with their changes in a canonical order.
    static func appHistory(_ context: ModelContext) throws -> [(transaction: DefaultHistoryTransaction, changes: [Change])] {
        try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map { transaction in
            (transaction, transaction.changes.map(change).sorted())
        }
    }

    /// `osd history --json`'s transactions, parsed.
    static func toolHistory(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try OSDTool.run(["history"] + arguments + ["--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        return try #require(object as? [[String: Any]])
    }

    /// The transaction numbers of `osd history --json`'s transactions.
    static func numbers(_ transactions: [[String: Any]]) -> [Int64] {
        transactions.compactMap { ($0["transaction"] as? NSNumber)?.int64Value }
    }

    /// The changes of one transaction `osd history --json` printed, with preserved values as JSON text.
    static func changes(of transaction: [String: Any]) -> [Change] {
        let printed = transaction["changes"] as? [[String: Any]] ?? []
        var changes: [Change] = []
        for change in printed {
            var preserved: [String: String] = [:]
            for (name, value) in change["preserved"] as? [String: Any] ?? [:] {
                if let text = value as? String {
                    preserved[name] = "\"\(text)\""
                } else if let flag = value as? Bool {
                    // Linux's JSONSerialization reads 1 as true too: `differential` checks the text.
                    preserved[name] = flag ? "true" : "false"
                } else {
                    preserved[name] = "\(value)"
                }
            }
            let kind = change["kind"] as? String ?? "missing"
            let model = change["model"] as? String ?? "missing"
            let key = (change["_id"] as? NSNumber)?.int64Value ?? -1
            let properties = change["properties"] as? [String] ?? []
            changes.append(Change(kind: kind, model: model, key: key, properties: properties, preserved: preserved))
        }
        return changes.sorted()
    }

    /// Checks that the tool's transactions are the app's, field by field.
    static func expectSameHistory(_ context: ModelContext, store: String, name: [String]) throws {
        let app = try appHistory(context)
        let tool = try toolHistory([store] + name)
        #expect(tool.count == app.count)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (printed, (transaction, changes)) in zip(tool, app) {
            let number = (printed["transaction"] as? NSNumber)?.int64Value
            #expect(number == transaction.transactionIdentifier)
            let author = printed["author"] as? String
            #expect(author == transaction.author)
            let authorIsNull = printed["author"] is NSNull
            #expect(authorIsNull == (transaction.author == nil))
            let bundle = printed["bundle"] as? String
            let process = printed["process"] as? String
            #expect(bundle == transaction.bundleIdentifier)
            #expect(process == transaction.processIdentifier)
            let stamp = printed["timestamp"] as? String ?? ""
            // The formatter reads milliseconds; the tool prints every digit the store holds.
            let date = formatter.date(from: String(stamp.prefix(23)) + "Z") ?? .distantPast
            #expect(abs(date.timeIntervalSince(transaction.timestamp)) < 0.001, "\(stamp) \(transaction.timestamp)")
            let printedChanges = Self.changes(of: printed)
            #expect(printedChanges == changes, "transaction \(transaction.transactionIdentifier)")
        }
    }

    @Test("random saves print as the app reads them")
    func differential() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("history.store")
        let context = try Self.saveRandomChanges(ModelConfiguration(url: URL(fileURLWithPath: path)), rounds: 25)
        let app = try Self.appHistory(context)
        #expect(app.contains { $0.changes.contains { $0.kind == "update" && $0.model == "Voyage" } })
        #expect(app.contains { $0.changes.contains { !$0.preserved.isEmpty } })
        try Self.expectSameHistory(context, store: path, name: [])
        let text = try OSDTool.run("history", path, "--json").output
        #expect(text.contains("\"paid\":true") || text.contains("\"paid\":false"))
        #expect(!text.contains("\"paid\":1") && !text.contains("\"paid\":0"))
    }
}

/// `osd history` on a PostgreSQL store. Needs the server `Scripts/with-postgres.sh` starts.
@Suite("osd history on PostgreSQL", .enabled(if: ToolPostgres.isAvailable, ToolPostgres.skipMessage))
struct PostgresHistoryTests {
    let url: String

    init() throws {
        url = try ToolPostgres.requiredURL()
    }

    @Test("random saves print as the app reads them, in pages of a thousand")
    func differential() throws {
        let configuration = try ToolPostgres.freshConfiguration("osdhistory")
        let name = configuration.name
        let context = try HistoryTests.saveRandomChanges(configuration, rounds: 25)
        try HistoryTests.expectSameHistory(context, store: url, name: ["--name", name])
        // The tool reads a thousand transactions at a time: pages follow one another, oldest or
        // newest first.
        for serial in 0..<1_050 {
            context.insert(Ticket(code: "P\(serial)", paid: false, price: 1, seat: serial))
            try context.save()
        }
        let saved = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier)
        let all = try HistoryTests.toolHistory([url, "--name", name])
        #expect(HistoryTests.numbers(all) == saved)
        let newest = try HistoryTests.toolHistory([url, "--name", name, "--last", "1010"])
        #expect(HistoryTests.numbers(newest) == Array(saved.suffix(1_010)))
        // Authors are selected by the server, quotes and all.
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let bySync = history.filter { $0.author == "sync \"eu\"" }.map(\.transactionIdentifier)
        #expect(HistoryTests.numbers(try HistoryTests.toolHistory([url, "--name", name, "--author", "sync \"eu\""])) == bySync)
        #expect(HistoryTests.numbers(try HistoryTests.toolHistory([url, "--name", name, "--author", "sync \"eu\"", "--last", "2"])) == Array(bySync.suffix(2)))
    }

    @Test("--follow prints each save as it lands")
    func follow() throws {
        let configuration = try ToolPostgres.freshConfiguration("osdhistory")
        let name = configuration.name
        let context = ModelContext(try ModelContainer(for: Schema(HistoryTests.models), configurations: [configuration]))
        context.insert(Ticket(code: "A", paid: true, price: 2, seat: 1))
        try context.save()
        let tool = try RunningTool(["history", url, "--name", name, "--follow", "--json"])
        #expect(tool.waitForOutput { $0.contains(#""transaction":1,"#) }, "\(tool.output)")
        let ticket = try #require(try context.fetch(FetchDescriptor<Ticket>()).first)
        context.delete(ticket)
        try context.save()
        #expect(tool.waitForOutput { $0.contains(#""transaction":2,"#) }, "\(tool.output)")
        #expect(tool.output.contains(#"{"kind":"delete","model":"Ticket","_id":1,"preserved":{"code":"A","paid":true,"price":"2"}}"#), "\(tool.output)")
        #expect(tool.isRunning)
        tool.stop()
        #expect(tool.output.split(separator: "\n").count == 2)
    }
}
