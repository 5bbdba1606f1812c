import ArgumentParser
import OSDKit

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the saves a store's history records: when, by which author and process, and what changed.",
        discussion: """
            One transaction per save, oldest first: its number (a DefaultHistoryToken's), time, author,
            process, then its inserts, updates (with the properties they changed, named as the models of
            their time named them) and deletions (with the values .preserveValueOnDeletion kept), by _id.
            With --follow, then every transaction saved from now on, until interrupted.
            """)

    @Argument(help: "The store file, or a PostgreSQL server's URL (postgres://user@host/database).") var store: String
    @Option(help: "On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.") var name = "default"
    @Option(help: "Only transactions after transaction N.") var after: Int64 = 0
    @Option(help: "At most N transactions, the oldest first.") var limit: Int?
    @Option(help: "Only the newest N transactions.") var last: Int?
    @Option(help: "Only saves of contexts whose author is AUTHOR.") var author: String?
    @Option(help: "Only changes to MODEL and the models that inherit from it.") var model: String?
    @Flag(help: "Then print each transaction saved from now on, within half a second, until interrupted.") var follow = false
    @Flag(help: "Print JSON for machines: an array with one transaction per line (with --follow, one transaction per line and no array).") var json = false

    func run() throws {
        try reportingFailures {
            let listing = HistoryListing(after: after, limit: limit, last: last, author: author, model: model)
            if follow {
                try listing.follow(storeAt: store, name: name, json: json, output: printLine)
            } else {
                try listing.run(storeAt: store, name: name, json: json, output: printLine)
            }
        }
    }
}
