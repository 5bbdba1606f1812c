import Foundation

/// The value transformer of a `.transformable(by:)` attribute, as the attribute names it: a
/// transformer class or the name of a registered transformer. Generated code passes it to the
/// row-coding methods of a value that is not `Codable`; not API.
public struct _ValueTransformation {
    /// Makes an instance of the transformer class, or `nil` for a transformer named by a string.
    private let make: (() -> ValueTransformer)?
    /// The name: the registered name given, or the class's name.
    let name: String

    /// The transformation of a transformer class, made with `make` unless one is registered
    /// under the class's name.
    public init(_ transformerType: ValueTransformer.Type, make: @escaping () -> ValueTransformer) {
        self.make = make
        self.name = String(describing: transformerType)
    }

    /// The transformation of the transformer registered under `name`.
    public init(_ name: String) {
        self.make = nil
        self.name = name
    }

    /// The transformer: the one registered under the name, or else a new instance of the class.
    func transformer() -> ValueTransformer? {
        #if canImport(Darwin)
        if let registered = ValueTransformer(forName: NSValueTransformerName(name)) { return registered }
        return make?()
        #else
        TransformerRegistry.transformer(named: name) ?? make?()
        #endif
    }

    /// The bytes to store for `value` (not `nil`): what ``ValueTransformer/transformedValue(_:)``
    /// makes of it, as Core Data asks of a transformer, or else what
    /// ``ValueTransformer/reverseTransformedValue(_:)`` makes (a transformer written the other
    /// way round). An `NSSecureUnarchiveFromDataTransformer` archives in reverse, as Core Data
    /// uses it.
    func data(from value: Any) throws(TransformationError) -> Data {
        guard let transformer = transformer() else { throw .noTransformer(name) }
        if transformer is NSSecureUnarchiveFromDataTransformer {
            // Its transformation unarchives; its reverse archives.
            guard let data = transformer.reverseTransformedValue(value) as? Data else { throw .noData(name, valueType: "\(Swift.type(of: value))") }
            return data
        }
        if let data = transformer.transformedValue(value) as? Data { return data }
        if Swift.type(of: transformer).allowsReverseTransformation(), let data = transformer.reverseTransformedValue(value) as? Data {
            return data
        }
        throw .noData(name, valueType: "\(Swift.type(of: value))")
    }

    /// The value the stored bytes stand for: what ``ValueTransformer/reverseTransformedValue(_:)``
    /// makes of them, or else what ``ValueTransformer/transformedValue(_:)`` makes.
    func value<T>(from data: Data, as type: T.Type) throws(TransformationError) -> T {
        guard let transformer = transformer() else { throw .noTransformer(name) }
        if transformer is NSSecureUnarchiveFromDataTransformer {
            guard let value = transformer.transformedValue(data) as? T else { throw .noValue(name, valueType: "\(T.self)") }
            return value
        }
        if Swift.type(of: transformer).allowsReverseTransformation(), let value = transformer.reverseTransformedValue(data) as? T {
            return value
        }
        if let value = transformer.transformedValue(data) as? T { return value }
        throw .noValue(name, valueType: "\(T.self)")
    }

    /// Why a transformation failed.
    enum TransformationError: Error, CustomStringConvertible {
        case noTransformer(String)
        case noData(String, valueType: String)
        case noValue(String, valueType: String)

        var description: String {
            switch self {
            case .noTransformer(let name):
                "no value transformer is registered as \(name) (register one with ValueTransformer.setValueTransformer(_:forName:))"
            case .noData(let name, let valueType):
                "\(name) did not turn the \(valueType) into Data"
            case .noValue(let name, let valueType):
                "\(name) did not turn the stored bytes back into a \(valueType)"
            }
        }
    }
}

extension _RowReader {
    /// Reads a `.transformable(by:)` value of a type that is not `Codable`: the BLOB its
    /// transformer made, turned back into the value. Called by generated code.
    public func _read<T>(_ type: T.Type, _ column: Int32, _ context: ModelContext, transformedBy transformation: _ValueTransformation) throws -> T {
        if _isNull(column) {
            if let optional = T.self as? any _OptionalValue.Type, let none = optional._nilValue as? T { return none }
            throw ValueCodingError.unexpectedNull(context: _context)
        }
        let data = _withBytes(column) { Data($0) }
        do {
            let value = try transformation.value(from: data, as: T.self)
            PlaceholderSamples.note(data, of: T.self, transformedBy: transformation)
            return value
        } catch {
            throw ValueCodingError.undecodable(context: _context, underlying: error.description)
        }
    }

    /// Reads a `.transformable(by:)` value of a `Codable` type, stored as JSON as every `Codable`
    /// value is. Called by generated code.
    public func _read<T: Codable>(_ type: T.Type, _ column: Int32, _ context: ModelContext, transformedBy transformation: _ValueTransformation) throws -> T {
        try _read(T.self, column, context)
    }

    /// Reads a `.transformable(by:)` value of a standard value type, stored natively. Called by
    /// generated code.
    @inlinable
    public func _read<T: _PersistentScalar>(_ type: T.Type, _ column: Int32, _ context: ModelContext, transformedBy transformation: _ValueTransformation) throws -> T {
        try _read(T.self, column, context)
    }
}

extension _RowWriter {
    /// Writes a `.transformable(by:)` value of a type that is not `Codable` as the BLOB its
    /// transformer makes of it, or NULL for `nil`. Called by generated code.
    public func _write<T>(_ value: T, _ column: Int32, _ links: _DeferredLinks, transformedBy transformation: _ValueTransformation) throws {
        let unwrapped: Any
        if let optional = value as? any _OptionalValue {
            guard let wrapped = optional._wrapped else {
                try _bindNull(column)
                return
            }
            unwrapped = wrapped
        } else {
            unwrapped = value
        }
        let data = try transformation.data(from: unwrapped)
        PlaceholderSamples.note(data, of: T.self, transformedBy: transformation)
        try data.withUnsafeBytes { try _bind(bytes: $0, column) }
    }

    /// Writes a `.transformable(by:)` value of a `Codable` type as JSON, as every `Codable` value
    /// is. Called by generated code.
    public func _write<T: Codable>(_ value: T, _ column: Int32, _ links: _DeferredLinks, transformedBy transformation: _ValueTransformation) throws {
        try _write(value, column, links)
    }

    /// Writes a `.transformable(by:)` value of a standard value type natively. Called by
    /// generated code.
    @inlinable
    public func _write<T: _PersistentScalar>(_ value: T, _ column: Int32, _ links: _DeferredLinks, transformedBy transformation: _ValueTransformation) throws {
        try _write(value, column, links)
    }
}
