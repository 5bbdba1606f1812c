import Foundation
import OpenSwiftData

@Model final class Ticket {
    #Unique<Ticket>([\.code])
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
