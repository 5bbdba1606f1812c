import Foundation
import OpenSwiftData

/// A group of items: deleting one deletes its items (`.cascade`), on every device.
@Model
public final class CheckGroup {
    @Attribute(.unique) public var key: String
    public var name: String
    @Relationship(deleteRule: .cascade, inverse: \CheckItem.group) public var items: [CheckItem] = []

    public init(key: String, name: String) {
        self.key = key
        self.name = name
    }
}

/// An item the checker's clients insert, change and delete at random.
@Model
public final class CheckItem {
    @Attribute(.unique) public var key: String
    public var label: String
    public var count: Int
    public var score: Double
    public var group: CheckGroup?

    public init(key: String, label: String, count: Int, score: Double) {
        self.key = key
        self.label = label
        self.count = count
        self.score = score
    }
}

/// The checker's models.
public let checkModels: [any PersistentModel.Type] = [CheckGroup.self, CheckItem.self]
