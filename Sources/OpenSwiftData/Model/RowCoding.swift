/// Column-level read access to one row of a store. Stores implement it; generated code reads
/// through it. Not API.
public protocol _RowReader {
    /// Whether the column holds NULL.
    func _isNull(_ column: Int32) -> Bool
    /// The column as a 64-bit integer.
    func _int64(_ column: Int32) -> Int64
    /// The column as a floating-point number, including NaN stored as its 8-byte bit pattern.
    ///
    /// Throws when the column holds what is no number (another program may write anything into
    /// a column whose type SQLite leaves open).
    func _double(_ column: Int32) throws -> Double
    /// The column as text, exactly as stored.
    func _string(_ column: Int32) -> String
    /// Calls `body` with the bytes of a BLOB column.
    func _withBytes<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    /// The model and property being read, for error messages.
    var _context: (model: String, property: String)? { get }
}

/// Parameter-level write access to a statement of a store. Stores implement it; generated code
/// writes through it. Not API.
public protocol _RowWriter {
    /// Whether the statement takes a value at the (0-based) position; the keyless side of a
    /// one-to-one relationship, whose key the other row holds, may have none.
    func _hasParameter(_ column: Int32) -> Bool
    /// Binds NULL.
    func _bindNull(_ column: Int32) throws
    /// Binds a 64-bit integer.
    func _bind(_ value: Int64, _ column: Int32) throws
    /// Binds a floating-point number.
    func _bind(_ value: Double, _ column: Int32) throws
    /// Binds text.
    func _bind(_ value: String, _ column: Int32) throws
    /// Binds a BLOB.
    func _bind(bytes: UnsafeRawBufferPointer, _ column: Int32) throws
}

extension _RowWriter {
    /// Every position takes a value, unless the writer says otherwise.
    public func _hasParameter(_ column: Int32) -> Bool { true }
}

/// The to-one relationships a save could not write yet: models new in the same save get their
/// keys as their rows are written, so a row that refers to one written later records it here, and
/// the store sets the key once every new row has one. Not API.
public final class _DeferredLinks {
    /// The positions and the related models, in the order written.
    var links: [(parameter: Int32, target: any PersistentModel)] = []

    /// Creates an empty collection.
    public init() {}

    /// Whether nothing was deferred.
    package var isEmpty: Bool { links.isEmpty }

    /// Returns the deferred links and forgets them.
    package func take() -> [(parameter: Int32, target: any PersistentModel)] {
        defer { links.removeAll(keepingCapacity: true) }
        return links
    }
}

/// A value type that a store holds in one native column. Not API: OpenSwiftData conforms the
/// standard value types; other `Codable` types are stored as JSON.
public protocol _PersistentScalar: Codable, Sendable, _PlaceholderValue {
    /// How the type is stored.
    static var _osdStorage: _StorageClass { get }
    /// Reads a value from a column that is not NULL.
    static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Self
    /// Writes the value to a statement parameter.
    func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws
    /// A value that stands in for a `let` property whose stored value could not be read: zero,
    /// empty, or `nil`. The failure itself is reported (see ``_osdConstant(_:property:)``).
    static var _osdPlaceholder: Self { get }
}

/// The package's own name for ``_StorageClass``.
package typealias StorageClass = _StorageClass

/// The way a property's values are laid out in a store column. Generated code and the standard
/// value types name it; it is not API (the package's own code calls it `StorageClass`).
public enum _StorageClass: String, Sendable, Codable {
    /// Signed integers and Booleans, as SQLite INTEGER.
    case integer
    /// `UInt64` and `UInt`, as INTEGER with the sign bit flipped so that SQL order matches Swift order.
    case unsignedInteger
    /// `Double` and `Float`, as REAL; NaN as its 8-byte bit pattern.
    case real
    /// `Date`, as REAL seconds since 2001-01-01 00:00:00 UTC.
    case date
    /// `String` and `URL`, as TEXT exactly as given.
    case text
    /// `Data`, as BLOB.
    case blob
    /// `UUID`, as a 16-byte BLOB.
    case uuid
    /// `Decimal`, as a BLOB whose byte order matches numeric order.
    case decimal
    /// Other `Codable` values (collections, structs, enums), as JSON TEXT.
    case json
}

/// Marks `Optional` so that generic code can produce `nil` for a NULL column.
protocol _OptionalValue {
    static var _nilValue: Self { get }
    var _isNil: Bool { get }
    /// The wrapped value, or `nil`.
    var _wrapped: Any? { get }
}

extension Optional: _OptionalValue {
    static var _nilValue: Self { nil }
    var _isNil: Bool { self == nil }
    var _wrapped: Any? { self.map { $0 } }
}

extension _RowReader {
    /// Reads a natively stored value. Called by generated code.
    @inlinable
    public func _read<T: _PersistentScalar>(_ type: T.Type, _ column: Int32, _ context: ModelContext) throws -> T {
        // Non-optional scalars live in NOT NULL columns of STRICT tables, so SQLite itself rules
        // out NULL there; `Optional` checks for it in its own `_osdRead`.
        try T._osdRead(from: self, column)
    }

    /// Reads a JSON-stored `Codable` value. Called by generated code.
    public func _read<T: Codable>(_ type: T.Type, _ column: Int32, _ context: ModelContext) throws -> T {
        if _isNull(column) {
            if let optional = T.self as? any _OptionalValue.Type, let none = optional._nilValue as? T { return none }
            throw ValueCodingError.unexpectedNull(context: _context)
        }
        let text = _string(column)
        do {
            let value = try JSONCoding.decoder().decode(T.self, from: Data(text.utf8))
            PlaceholderSamples.note(text, of: T.self)
            return value
        } catch {
            throw ValueCodingError.undecodable(context: _context, underlying: "\(error)")
        }
    }

    /// Rejects types that cannot be stored, with a clear compile-time message.
    @available(*, unavailable, message: "OpenSwiftData stores Codable values and standard scalars; make the type Codable, store it with @Attribute(.transformable(by:)) and a value transformer, make it a @Model class to relate to it, or mark the property @Transient")
    public func _read<T>(_ type: T.Type, _ column: Int32, _ context: ModelContext) throws -> T { fatalError() }
}

extension _RowWriter {
    /// Writes a natively stored value. Called by generated code.
    @inlinable
    public func _write<T: _PersistentScalar>(_ value: T, _ column: Int32, _ links: _DeferredLinks) throws {
        try value._osdWrite(to: self, column)
    }

    /// Writes a `Codable` value as JSON, or NULL for `nil`. Called by generated code.
    public func _write<T: Codable>(_ value: T, _ column: Int32, _ links: _DeferredLinks) throws {
        if let optional = value as? any _OptionalValue, optional._isNil {
            try _bindNull(column)
            return
        }
        let text = String(decoding: try JSONCoding.encoder().encode(value), as: UTF8.self)
        PlaceholderSamples.note(text, of: T.self)
        try _bind(text, column)
    }

    /// Rejects types that cannot be stored, with a clear compile-time message.
    @available(*, unavailable, message: "OpenSwiftData stores Codable values and standard scalars; make the type Codable, store it with @Attribute(.transformable(by:)) and a value transformer, or mark the property @Transient")
    public func _write<T>(_ value: T, _ column: Int32, _ links: _DeferredLinks) throws { fatalError() }
}

/// The JSON settings of `Codable` properties: non-finite numbers survive, keys are sorted so that
/// equal values have equal text.
enum JSONCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }
}

/// Values the built-in stores refuse to write; the save names the model and property
/// (``PropertyEncoding``).
@usableFromInline
enum ValueWritingError: Error, CustomStringConvertible {
    /// A `Date` whose time interval is NaN.
    case dateIsNaN

    @usableFromInline var description: String {
        switch self {
        case .dateIsNaN:
            "the Date's time interval is NaN, which is no point in time; the store's date columns hold only numbers"
        }
    }
}

/// Errors reading a stored value back into a property.
@usableFromInline
enum ValueCodingError: Error, CustomStringConvertible {
    case unexpectedNull(context: (model: String, property: String)?)
    case outOfRange(context: (model: String, property: String)?, value: String)
    case undecodable(context: (model: String, property: String)?, underlying: String)

    @usableFromInline var description: String {
        func place(_ context: (model: String, property: String)?) -> String {
            context.map { "\($0.model).\($0.property)" } ?? "a property"
        }
        switch self {
        case .unexpectedNull(let context):
            return "The store holds NULL for the non-optional \(place(context))"
        case .outOfRange(let context, let value):
            return "The store holds \(value), which does not fit \(place(context))"
        case .undecodable(let context, let underlying):
            return "The stored value of \(place(context)) could not be decoded: \(underlying)"
        }
    }
}
