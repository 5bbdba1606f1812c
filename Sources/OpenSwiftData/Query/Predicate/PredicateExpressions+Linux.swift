#if !canImport(Darwin)
// Linux's Foundation lacks three predicate nodes that Darwin's has. Declaring them (and their
// `build_` functions, which `#Predicate` expands to) lets SwiftData code such as
// `#Predicate<Trip> { $0.name.localizedStandardContains(text) }` compile and run unchanged.

extension PredicateExpressions {
    /// `root.localizedStandardContains(other)`: case- and diacritic-insensitive containment.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// Whether `root` contains `other`.
        public typealias Output = Bool
        /// The string searched.
        public let root: Root
        /// The string searched for.
        public let other: Other

        /// Creates the node.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates `localizedStandardContains` on the two strings.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// `root.caseInsensitiveCompare(other)`.
    public struct StringCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// How `root` orders against `other`.
        public typealias Output = ComparisonResult
        /// The string compared.
        public let root: Root
        /// The string compared with.
        public let other: Other

        /// Creates the node.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates `caseInsensitiveCompare` on the two strings.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).caseInsensitiveCompare(try other.evaluate(bindings))
        }
    }

    /// `root.localizedCompare(other)`.
    public struct StringLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// How `root` orders against `other`.
        public typealias Output = ComparisonResult
        /// The string compared.
        public let root: Root
        /// The string compared with.
        public let other: Other

        /// Creates the node.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates `localizedCompare` on the two strings.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).localizedCompare(try other.evaluate(bindings))
        }
    }

    /// Builds the node for `localizedStandardContains` in `#Predicate`.
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other)
        -> StringLocalizedStandardContains<Root, Other> { .init(root: root, other: other) }

    /// Builds the node for `caseInsensitiveCompare` in `#Predicate`.
    public static func build_caseInsensitiveCompare<Root, Other>(_ root: Root, _ other: Other)
        -> StringCaseInsensitiveCompare<Root, Other> { .init(root: root, other: other) }

    /// Builds the node for `localizedCompare` in `#Predicate`.
    public static func build_localizedCompare<Root, Other>(_ root: Root, _ other: Other)
        -> StringLocalizedCompare<Root, Other> { .init(root: root, other: other) }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}
#endif
