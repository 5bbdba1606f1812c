/// A type that marks a point in a store's history: every save after it comes later.
///
/// Tokens are valid for the store that issued them only.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of the token's value.
    associatedtype TokenType
    /// The value that orders the token among the store's other tokens.
    var tokenValue: TokenType { get }
}

extension HistoryToken {
    /// The identifier of the store the token marks a point in.
    ///
    /// Use it with ``ModelContainer/configurationName(forStoreIdentifier:)`` to find the
    /// configuration the store was opened with. A token of a type of your own, or one decoded
    /// from data that names no single store, has an empty identifier.
    public var storeIdentifier: String {
        guard let token = self as? DefaultHistoryToken, token.tokenValue.count == 1 else { return "" }
        return token.tokenValue.keys.first ?? ""
    }
}

/// The token of OpenSwiftData's stores: the number of the last transaction seen, by store.
///
/// Tokens compare by that number within one store; a token is valid for the store that issued it.
public struct DefaultHistoryToken: HistoryToken {
    /// The transaction number, by store identifier.
    public typealias TokenType = [String: Int64]
    /// The token's identity, its value.
    public typealias ID = [String: Int64]

    /// The number of the last transaction the token marks, by store identifier.
    public let tokenValue: [String: Int64]
    /// The token's identity: its value.
    public var id: [String: Int64] { tokenValue }
    init(storeIdentifier: String, transaction: Int64) {
        tokenValue = [storeIdentifier: transaction]
    }

    /// Whether `lhs` marks an earlier point than `rhs` in every store both name.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        let shared = lhs.tokenValue.keys.filter { rhs.tokenValue[$0] != nil }
        guard !shared.isEmpty else { return false }
        return shared.allSatisfy { lhs.tokenValue[$0]! <= rhs.tokenValue[$0]! } && shared.contains { lhs.tokenValue[$0]! < rhs.tokenValue[$0]! }
    }
}
