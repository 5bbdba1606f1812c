import Foundation

/// A locale-aware order of strings for a sort descriptor:
/// `SortDescriptor(\.name, comparator: .localizedStandard)`.
///
/// Foundation on Apple platforms spells these `String.StandardComparator.localizedStandard` and
/// `.localized`; Foundation on Linux has only `.lexical`. OpenSwiftData adds these two on Linux
/// for the key paths of models, so that SwiftData code that names them compiles unchanged and
/// sorts as it does on Apple platforms: by `localizedStandardCompare(_:)` (the Finder's order:
/// case-insensitive first, numbers by value) or by `localizedCompare(_:)`.
///
/// The SQLite store sorts by these in SQL; the PostgreSQL store and custom stores sort the
/// fetched models in Swift, with the same comparison.
public enum LocalizedStringComparator: Hashable, Sendable {
    /// The order of `localizedStandardCompare(_:)`, as the Finder sorts file names.
    case localizedStandard
    /// The order of `localizedCompare(_:)`.
    case localized

    /// How this comparator orders two strings.
    public func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        switch self {
        case .localizedStandard: lhs.localizedStandardCompare(rhs)
        case .localized: lhs.localizedCompare(rhs)
        }
    }
}

extension LocalizedStringComparator {
    /// The locale-aware order a sort descriptor's own string comparator asks for: on Apple
    /// platforms, `.localizedStandard` (the default for string key paths there) or `.localized`;
    /// `nil` for `.lexical`, for other values, and on Linux, where Foundation has only `.lexical`.
    static func of<Compared>(_ descriptor: SortDescriptor<Compared>) -> LocalizedStringComparator? {
        #if canImport(Darwin)
        guard var comparator = descriptor.stringComparator else { return nil }
        comparator.order = .forward
        if comparator == String.StandardComparator.localizedStandard { return .localizedStandard }
        if comparator == String.StandardComparator.localized { return .localized }
        return nil
        #else
        return nil
        #endif
    }
}

/// A string that compares by a ``LocalizedStringComparator``: the value a sort descriptor made
/// with one reads from each model.
public struct _CollatedString: Comparable, Hashable, Sendable {
    /// The string.
    public let value: String
    /// Its order.
    public let comparator: LocalizedStringComparator

    /// Whether `lhs` comes before `rhs` in the comparator's order.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.comparator.compare(lhs.value, rhs.value) == .orderedAscending
    }

    /// Whether the comparator orders the two texts the same.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.comparator.compare(lhs.value, rhs.value) == .orderedSame
    }

    /// Hashes the comparator alone (see the comment inside).
    public func hash(into hasher: inout Hasher) {
        // Strings the comparator calls the same may differ in case or width; they share a hash
        // only through the comparator.
        hasher.combine(comparator)
    }
}
