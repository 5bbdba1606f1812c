import Foundation

#if !canImport(Darwin)
extension SortDescriptor where Compared: PersistentModel {
    /// Creates a sort descriptor that orders models by a string property with a locale-aware
    /// comparator: `SortDescriptor(\.name, comparator: .localizedStandard)`.
    ///
    /// - Parameters:
    ///   - keyPath: The string property to order by.
    ///   - comparator: `.localizedStandard` or `.localized`. (For `.lexical`, Foundation's own
    ///     initializer applies.)
    ///   - order: Ascending (`.forward`, the default) or descending (`.reverse`).
    public init(_ keyPath: any KeyPath<Compared, String> & Sendable, comparator: LocalizedStringComparator, order: SortOrder = .forward) {
        let key = _CollationKey<Compared, String>(keyPath: keyPath, comparator: comparator)
        let collated: any KeyPath<Compared, _CollatedString> & Sendable = \Compared.[_osdCollated: key]
        CollatedSortKeys.register(collated, base: keyPath, comparator: comparator)
        self.init(collated, order: order)
    }

    /// Creates a sort descriptor that orders models by an optional string property with a
    /// locale-aware comparator; `nil` comes first in ascending order.
    ///
    /// - Parameters:
    ///   - keyPath: The optional string property to order by.
    ///   - comparator: `.localizedStandard` or `.localized`.
    ///   - order: Ascending (`.forward`, the default) or descending (`.reverse`).
    public init(_ keyPath: any KeyPath<Compared, String?> & Sendable, comparator: LocalizedStringComparator, order: SortOrder = .forward) {
        let key = _CollationKey<Compared, String?>(keyPath: keyPath, comparator: comparator)
        let collated: any KeyPath<Compared, _CollatedString?> & Sendable = \Compared.[_osdCollated: key]
        CollatedSortKeys.register(collated, base: keyPath, comparator: comparator)
        self.init(collated, order: order)
    }
}
#endif

/// The string property (`String` or `String?`) and comparator of a collated sort key (see
/// ``LocalizedStringComparator``).
public struct _CollationKey<Root, Value>: Hashable, Sendable {
    let keyPath: any KeyPath<Root, Value> & Sendable
    let comparator: LocalizedStringComparator

    /// Whether both keys name the same key path and order.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keyPath == rhs.keyPath && lhs.comparator == rhs.comparator
    }

    /// Hashes the key path and the order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyPath)
        hasher.combine(comparator)
    }
}

extension PersistentModel {
    /// The value of a string property, ordered by a locale-aware comparator: what a sort
    /// descriptor made with a ``LocalizedStringComparator`` reads.
    public subscript(_osdCollated key: _CollationKey<Self, String>) -> _CollatedString {
        _CollatedString(value: self[keyPath: key.keyPath], comparator: key.comparator)
    }

    /// The value of an optional string property, ordered by a locale-aware comparator.
    public subscript(_osdCollated key: _CollationKey<Self, String?>) -> _CollatedString? {
        self[keyPath: key.keyPath].map { _CollatedString(value: $0, comparator: key.comparator) }
    }
}

/// The collated key paths sort descriptors were made with, and the string property and
/// comparator each stands for, so that a store can sort by them in its query.
enum CollatedSortKeys {
    /// A key path as a dictionary key. Key paths are immutable, so sharing one is safe.
    private struct Key: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    private struct Entry: @unchecked Sendable {
        let base: AnyKeyPath
        let comparator: LocalizedStringComparator
    }

    private static let table = LockedValue<[Key: Entry]>([:])

    static func register(_ collated: AnyKeyPath, base: AnyKeyPath, comparator: LocalizedStringComparator) {
        table.withValue { $0[Key(keyPath: collated)] = Entry(base: base, comparator: comparator) }
    }

    /// The string property and comparator of a collated key path; `nil` for any other key path.
    static func lookUp(_ keyPath: AnyKeyPath) -> (base: AnyKeyPath, comparator: LocalizedStringComparator)? {
        table.withValue { $0[Key(keyPath: keyPath)] }.map { ($0.base, $0.comparator) }
    }
}
