/// Which of a model's unsaved-change and loading states hold. Generated storage; not API.
public struct _ModelFlags: OptionSet, Sendable {
    /// The flags, one bit each.
    public var rawValue: UInt8
    /// Creates flags from their bits.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The model is inserted in its context and not saved yet.
    @inlinable public static var inserted: _ModelFlags { _ModelFlags(rawValue: 1 << 0) }
    /// The model is marked for deletion (or its row was deleted).
    @inlinable public static var deleted: _ModelFlags { _ModelFlags(rawValue: 1 << 1) }
    /// The model was created from an identifier and none of its row is loaded yet.
    @inlinable public static var fault: _ModelFlags { _ModelFlags(rawValue: 1 << 2) }
    /// The context already lists the model among its changed models.
    @inlinable public static var listedAsChanged: _ModelFlags { _ModelFlags(rawValue: 1 << 3) }
}
