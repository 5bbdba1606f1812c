import Foundation
import OpenSwiftData

@Model final class Ticket {
    #Unique<Ticket>([\.code])
    #Index<Ticket>([\.title])
    var code: String
    var title: String
    var count: Int
    var score: Double
    var owner: Desk?

    init(code: String, title: String, count: Int = 0, score: Double = 0) {
        self.code = code
        self.title = title
        self.count = count
        self.score = score
    }
}

@Model final class Desk {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Ticket.owner) var tickets: [Ticket] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class Poster {
    var label: String

    init(label: String) {
        self.label = label
    }
}

/// A value whose encoding runs an action once, while a save is writing: how the tests cut a
/// store's connection between two statements of one transaction.
struct Tripwire: Codable, Sendable {
    var label: String

    nonisolated(unsafe) static var action: (() -> Void)?

    func encode(to encoder: any Encoder) throws {
        if let action = Tripwire.action {
            Tripwire.action = nil
            action()
        }
        var container = encoder.singleValueContainer()
        try container.encode(label)
    }

    init(label: String) { self.label = label }

    init(from decoder: any Decoder) throws {
        label = try decoder.singleValueContainer().decode(String.self)
    }
}

@Model final class Wired {
    var wire: Tripwire
    init(label: String) { wire = Tripwire(label: label) }
}
