import Foundation
import OpenSwiftData
import OpenSwiftDataSync

/// Decides, on the server, a property that two devices changed: the value the server keeps and
/// every device receives.
///
/// The server asks the resolver whenever a pushed value meets a stored value of the same property
/// written by another client, the two differ, and the pushing device changed the property without
/// having the stored value (a change made over the server's current value is no conflict, and
/// is kept). Without a resolver, the later clock wins.
///
/// The conflict holds the value both sides started from, its ``SyncPropertyConflict/base``, for
/// a three-way merge:
///
/// ```swift
/// struct AddVisits: SyncConflictResolver {
///     func resolve(_ conflict: SyncPropertyConflict) -> SyncResolution {
///         guard conflict.property == "visits", let base = conflict.base?.integer,
///               let mine = conflict.incoming.integer, let theirs = conflict.current.integer
///         else { return .latest }
///         return .merged(.integer(theirs + mine - base))   // both devices' additions
///     }
/// }
/// ```
///
/// ```swift
/// struct KeepHigherPrice: SyncConflictResolver {
///     func resolve(_ conflict: SyncPropertyConflict) -> SyncResolution {
///         guard conflict.model == "Trip", conflict.property == "price",
///               let mine = conflict.incoming.double, let theirs = conflict.current.double
///         else { return .latest }
///         return mine >= theirs ? .incoming : .current
///     }
/// }
/// ```
///
/// The decision is authoritative: a pushing device whose value lost receives the kept value in
/// the push's answer and lists the conflict in ``SyncEngine/resolvedConflicts``.
public protocol SyncConflictResolver: Sendable {
    /// The value to keep.
    func resolve(_ conflict: SyncPropertyConflict) -> SyncResolution
}

/// One property that a push and the server's state both changed.
public struct SyncPropertyConflict: Sendable {
    /// The model's name.
    public let model: String
    /// The model's synchronized identifier.
    public let id: String
    /// The property's name.
    public let property: String
    /// The user whose device pushed.
    public let user: String
    /// The pushed value.
    public let incoming: SyncPropertyValue
    /// When the pushed value was written.
    public let incomingClock: SyncClock
    /// The stored value.
    public let current: SyncPropertyValue
    /// When the stored value was written.
    public let currentClock: SyncClock
    /// The value the pushing device changed (the last it had from the server or from itself):
    /// what both sides started from. `nil` when the server does not know it: the device predates
    /// bases, it never had a value of the property, or the value is older than the server keeps
    /// (``SyncServer/trimHistory(olderThan:)``).
    public let base: SyncPropertyValue?
    /// When the base value was written, when the device knows it.
    public let baseClock: SyncClock?
}

/// What a resolver keeps.
public enum SyncResolution: Sendable, Equatable {
    /// The value with the later clock (the rule without a resolver).
    case latest
    /// The pushed value.
    case incoming
    /// The stored value.
    case current
    /// Another value: for example a merge of the two. Its clock is later than both.
    case merged(SyncPropertyValue)
}

/// A property's value as the server holds it, readable as Swift values.
public struct SyncPropertyValue: Sendable, Hashable {
    package let value: SyncValue

    package init(_ value: SyncValue) {
        self.value = value
    }

    /// Whether the property holds no value.
    public var isNull: Bool { value.isNull }
    /// An integer or Boolean attribute's value.
    public var integer: Int64? { if case .value(.integer(let number)) = value { number } else { nil } }
    /// A floating-point attribute's value.
    public var double: Double? { if case .value(.real(let number)) = value { number } else { nil } }
    /// A text attribute's value.
    public var string: String? { if case .value(.text(let text)) = value { text } else { nil } }
    /// A date attribute's value.
    public var date: Date? { if case .value(.date(let date)) = value { date } else { nil } }
    /// A to-one relationship's model, by synchronized identifier.
    public var reference: String? { if case .reference(let id) = value { id } else { nil } }

    /// A value of an attribute stored as an integer.
    public static func integer(_ number: Int64) -> SyncPropertyValue { SyncPropertyValue(.value(.integer(number))) }
    /// A value of an attribute stored as a floating-point number.
    public static func double(_ number: Double) -> SyncPropertyValue { SyncPropertyValue(.value(.real(number))) }
    /// A value of a text attribute.
    public static func string(_ text: String) -> SyncPropertyValue { SyncPropertyValue(.value(.text(text))) }
    /// A value of a date attribute.
    public static func date(_ date: Date) -> SyncPropertyValue { SyncPropertyValue(.value(.date(date))) }
    /// No value, for an optional property.
    public static let null = SyncPropertyValue(.value(.null))
}
