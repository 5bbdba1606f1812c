import Foundation
import OpenSwiftData

/// The row model random predicates run against: every kind of attribute, optionals, an array,
/// a to-one and a to-many relationship.
@Model
public final class FuzzRow {
    /// The position of the plain row this one was made from.
    public var index: Int
    public var int: Int
    public var optInt: Int?
    public var double: Double
    public var text: String
    public var optText: String?
    public var flag: Bool
    public var optFlag: Bool?
    public var tags: [String]
    public var owner: FuzzOwner?
    @Relationship(inverse: \FuzzItem.row) public var items: [FuzzItem] = []
    /// The number of the last check whose update by predicate selected the row (no predicate
    /// reads it).
    public var mark: Int = 0

    public init(_ plain: PlainRow) {
        index = plain.index
        int = plain.int
        optInt = plain.optInt
        double = plain.double
        text = plain.text
        optText = plain.optText
        flag = plain.flag
        optFlag = plain.optFlag
        tags = plain.tags
    }
}

/// The owner a row relates to.
@Model
public final class FuzzOwner {
    public var name: String
    public var rank: Int
    public init(name: String, rank: Int) { self.name = name; self.rank = rank }
}

/// One of a row's items.
@Model
public final class FuzzItem {
    public var title: String
    public var score: Int
    public var row: FuzzRow?
    public init(title: String, score: Int) { self.title = title; self.score = score }
}

/// A row as plain values: what `evaluate` runs on, so that the expected results never depend on
/// the store.
public struct PlainRow: Sendable {
    public var index: Int
    public var int: Int
    public var optInt: Int?
    public var double: Double
    public var text: String
    public var optText: String?
    public var flag: Bool
    public var optFlag: Bool?
    public var tags: [String]
    public var owner: PlainOwner?
    public var items: [PlainItem]
}

/// An owner as plain values.
public struct PlainOwner: Sendable, Equatable {
    public var name: String
    public var rank: Int
}

/// An item as plain values.
public struct PlainItem: Sendable {
    public var title: String
    public var score: Int
}
