/// A type that marks a point in a store's history: every save after it comes later.
///
/// Tokens are valid for the store that issued them only.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of the token's value.
    associatedtype TokenType
    /// The value that orders the token among the store's other tokens.
    var tokenValue: TokenType { get }
}
