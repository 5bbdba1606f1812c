extension Schema {
    /// The indexes a model's storage has, as `#Index` declares them.
    ///
    /// ```swift
    /// @Model final class Trip {
    ///     #Index<Trip>(.binary([\.name]), .binary([\.startDate, \.endDate]))
    ///     …
    /// }
    /// ```
    ///
    /// Each index speeds up fetches that filter or sort by its properties and changes no result.
    /// Both kinds become ordinary (B-tree) indexes of the store: SQLite and PostgreSQL order every
    /// attribute type OpenSwiftData stores with one, and an R-tree would need a table of its own.
    public final class Index<T: PersistentModel>: Hashable, @unchecked Sendable {
        // @unchecked Sendable: immutable; key paths are values.

        /// A kind of index and the key paths it covers, in order.
        public enum Types<P: PersistentModel>: Hashable, @unchecked Sendable {
            // @unchecked Sendable: key paths are immutable values.

            /// An index that orders the models by the values of the key paths, the first first.
            case binary([PartialKeyPath<P>])
            /// A spatial index over the key paths' values; stored as a binary index.
            case rtree([PartialKeyPath<P>])

            /// The key paths the index covers, in order.
            public var keyPaths: [PartialKeyPath<P>] {
                switch self {
                case .binary(let keyPaths), .rtree(let keyPaths): keyPaths
                }
            }
        }

        /// The indexes, in the order they were declared.
        public let indices: [Types<T>]

        /// Creates the indexes described by their kinds and key paths.
        public init(_ indices: Types<T>...) {
            self.indices = indices
        }

        /// Creates binary indexes, one for each array of key paths.
        public init(_ binaryIndices: [PartialKeyPath<T>]...) {
            self.indices = binaryIndices.map { .binary($0) }
        }

        /// Whether two declarations describe the same indexes in the same order.
        public static func == (lhs: Index, rhs: Index) -> Bool { lhs.indices == rhs.indices }

        /// Hashes the indexes' kinds and key paths.
        public func hash(into hasher: inout Hasher) { hasher.combine(indices) }
    }
}
