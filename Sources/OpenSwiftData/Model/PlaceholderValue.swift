import Foundation

/// A type with a value a property reads when its stored value could not be loaded (the store
/// failed, or the row was deleted elsewhere): zero, empty, `nil`. Generated getters use it
/// instead of stopping the process; the context's next fetch or save throws the error.
public protocol _PlaceholderValue {
    static var _osdPlaceholderValue: Self { get }
}

/// The value of a property whose stored value could not be loaded (see ``_PlaceholderValue``):
/// the type's standard placeholder, the first case of a `CaseIterable` enum, a deleted stand-in
/// for a related model, the emptiest value a `Codable` type decodes from
/// (``PlaceholderDecoder``), a value of the type this process has stored or loaded
/// (``PlaceholderSamples``), one that other models of the same type hold in the store, or else
/// the all-zero value of a type that holds no references, or else the first case of an enum with
/// associated values, holding placeholders. A type with none of these (a type with references
/// that is not `Codable`, or whose decoding rejects every such value, never stored or loaded by
/// this process, in a store that holds no other such model) has nothing to read, and stops the
/// process with the reason; a property declared with an initial value reads as that value
/// instead (see ``_osdPlaceholder(_:property:declared:)``).
public func _osdPlaceholder<M: PersistentModel, T>(_ model: M, property index: Int) -> T {
    Placeholder.propertyValue(of: model, property: index) { nil }
}

/// The value of a property declared with an initial value (`var shape: Shape = .circle(1)`) whose
/// stored value could not be loaded: the type's own placeholder, the emptiest value it decodes
/// from, or else `initialValue`, evaluated afresh, before any value another model holds (see
/// ``_osdPlaceholder(_:property:)``).
public func _osdPlaceholder<M: PersistentModel, T>(_ model: M, property index: Int, declared initialValue: @autoclosure () -> T) -> T {
    Placeholder.propertyValue(of: model, property: index) { initialValue() }
}

/// The placeholders of the types that have one.
enum Placeholder {
    /// The value a property of `model` reads when its stored value could not be loaded (see
    /// ``_osdPlaceholder(_:property:)``), with the property's declared initial value, if any, to read
    /// when the type has no placeholder of its own.
    static func propertyValue<M: PersistentModel, T>(of model: M, property index: Int, declared: () -> T?) -> T {
        do {
            return try value(T.self, declared: declared)
        } catch {
            let lastResort: String
            switch loadStoredModels(like: model) {
            case .success:
                do {
                    return try value(T.self, declared: declared)
                } catch {
                    lastResort = "the stored \(M.self) models read held none either"
                }
            case .failure(let reason):
                lastResort = reason.reason
            }
            if let zero = zeroed(T.self) { return zero }
            let noFirstCase: String
            switch Result(catching: { try firstCaseDecoded(T.self) }) {
            case .success(let value?): return value
            case .success(nil): noFirstCase = "it has no first case to decode"
            case .failure(let firstCaseRejected): noFirstCase = "it does not decode as its first case either (\(firstCaseRejected))"
            }
            preconditionFailure("OpenSwiftData: \(M.self).\(M.schemaMetadata[index].name) could not be loaded (see the reports above) and \(T.self) has no placeholder value: \(error.reason), \(lastResort), and \(noFirstCase); give the property an initial value, make it optional or make the type CaseIterable")
        }
    }

    /// The placeholder of a type that declares one, or of a `CaseIterable` enum.
    static func standard<T>(_ type: T.Type) -> T? {
        if let type = T.self as? any _PlaceholderValue.Type, let value = type._osdPlaceholderValue as? T { return value }
        if let type = T.self as? any _PersistentScalar.Type, let value = type._osdPlaceholder as? T { return value }
        if let type = T.self as? any CaseIterable.Type, let value = firstCase(of: type) as? T { return value }
        return nil
    }

    /// The first case of an enum. (On the existential, `allCases.first` names the method
    /// `first(where:)`, not the element.)
    private static func firstCase<Cases: CaseIterable>(of type: Cases.Type) -> Cases? {
        Cases.allCases.first
    }

    /// How many models of the type ``loadStoredModels(like:)`` reads.
    static let storedModelsRead = 16

    /// Reads a few stored models of `model`'s type, in a context of their own on the container
    /// `model` belongs to, so that their values are kept as samples (``PlaceholderSamples``): the
    /// last resort for a property whose type has no placeholder. Fails, saying why, when none
    /// could be read (the caller stops the process with the reason).
    static func loadStoredModels<M: PersistentModel>(like model: M) -> Result<Void, Unavailable> {
        guard let container = model.modelContext?.container else {
            return .failure(Unavailable(reason: "the model belongs to no container to read other \(M.self) models from"))
        }
        var descriptor = FetchDescriptor<M>()
        descriptor.fetchLimit = storedModelsRead
        do {
            let loaded = try ModelContext(container).fetch(descriptor)
            return loaded.isEmpty ? .failure(Unavailable(reason: "the store holds no other \(M.self)")) : .success(())
        } catch {
            return .failure(Unavailable(reason: "reading other \(M.self) models failed (\(error))"))
        }
    }

    /// Why a type has no placeholder.
    struct Unavailable: Error {
        let reason: String
    }

    /// The placeholder of a type: any it has (``any(_:)``), or else the property's declared
    /// initial value, or else a value of the type this process stored or loaded (``sample(_:)``).
    static func value<T>(_ type: T.Type, declared: () -> T? = { nil }) throws(Unavailable) -> T {
        let noEmptyValue: String
        switch Result(catching: { try any(T.self) }) {
        case .success(let value?): return value
        case .success(nil): noEmptyValue = "it is not Codable"
        case .failure(let error): noEmptyValue = "it does not decode from empty values (\(error))"
        }
        if let initialValue = declared() { return initialValue }
        switch Result(catching: { try sample(T.self) }) {
        case .success(let value?): return value
        case .success(nil):
            throw Unavailable(reason: "\(noEmptyValue) and no value of it was stored or loaded in this process")
        case .failure(let error):
            throw Unavailable(reason: "\(noEmptyValue), and the value of it this process stored does not load again (\(error))")
        }
    }

    /// The value of a type that holds no references (a plain enum, a struct of numbers) whose bits
    /// are all zero: an enum's first case, zero numbers, `false`. `nil` for any other type, for
    /// which zero bits are no value, and for a type of no bits other than an enum of one case
    /// without associated values (``isEnumOfOneCase(_:)``): such a type may have no value at all
    /// (an enum without cases).
    static func zeroed<T>(_ type: T.Type) -> T? {
        guard _isPOD(T.self), MemoryLayout<T>.size > 0 || isEnumOfOneCase(T.self) else { return nil }
        return withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer -> T? in
            guard let base = buffer.baseAddress else { return nil }
            UnsafeMutableRawPointer(base).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.stride)
            return base.move()
        }
    }

    /// Whether `type` is an enum with exactly one case, which has no associated values, as the
    /// Swift runtime's metadata describes it (the kind `0x201`, then the enum's descriptor: its
    /// count of cases with associated values in the low 24 bits at byte 20, of cases without at
    /// byte 24; the layout Swift's stable ABI fixes).
    static func isEnumOfOneCase<T>(_ type: T.Type) -> Bool {
        let metadata = unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
        guard metadata.load(as: UInt.self) == 0x201 else { return false }
        let descriptor = metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UnsafeRawPointer.self)
        let casesWithValues = descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF
        let casesWithout = descriptor.load(fromByteOffset: 24, as: UInt32.self)
        return casesWithValues == 0 && casesWithout == 1
    }

    /// Any placeholder the type has, including a stand-in model and a decoded empty value;
    /// throws why a `Decodable` type rejected the empty value.
    static func any<T>(_ type: T.Type) throws -> T? {
        if let value = standard(T.self) { return value }
        if let type = T.self as? any PersistentModel.Type, let value = standIn(type) as? T { return value }
        if let type = T.self as? any Decodable.Type { return try decoded(type) as? T }
        return nil
    }

    /// The value a `Decodable` type decodes from placeholders when offered its first key
    /// (``PlaceholderDecoder/offersFirstKey``): an enum with associated values as its first case,
    /// holding placeholders. `nil` for a type that is not `Decodable`; throws why the type
    /// rejected it.
    static func firstCaseDecoded<T>(_ type: T.Type) throws -> T? {
        guard let type = T.self as? any Decodable.Type else { return nil }
        return try decoded(type, offeringFirstKey: true) as? T
    }

    /// A value of a `Decodable` type that this process stored or loaded, decoded afresh.
    static func sample<T>(_ type: T.Type) throws -> T? {
        guard let type = T.self as? any Decodable.Type else { return try PlaceholderSamples.transformedSample(of: T.self) }
        return try decodedSample(type) as? T
    }

    private static func decodedSample<Value: Decodable>(_ type: Value.Type) throws -> Value? {
        try PlaceholderSamples.sample(of: type)
    }

    /// A model of the type that no context manages, marked deleted: the placeholder of a
    /// non-optional to-one relationship. Its own properties read as placeholders.
    private static func standIn<Related: PersistentModel>(_ type: Related.Type) -> Related {
        let model = Related(backingData: _ModelBacking<Related>())
        model._osdState.isDeleted = true
        return model
    }

    /// The emptiest value the type decodes from (``PlaceholderDecoder``), its keyed containers
    /// listing their first key when `offeringFirstKey` is set.
    private static func decoded<Value: Decodable>(_ type: Value.Type, offeringFirstKey: Bool = false) throws -> Value {
        try Value(from: PlaceholderDecoder(offersFirstKey: offeringFirstKey))
    }
}

extension _PersistentScalar {
    /// The standard value type's placeholder.
    public static var _osdPlaceholderValue: Self { _osdPlaceholder }
}

extension Optional: _PlaceholderValue { public static var _osdPlaceholderValue: Self { nil } }
extension Array: _PlaceholderValue { public static var _osdPlaceholderValue: Self { [] } }
extension Set: _PlaceholderValue { public static var _osdPlaceholderValue: Self { [] } }
extension Dictionary: _PlaceholderValue { public static var _osdPlaceholderValue: Self { [:] } }
extension String: _PlaceholderValue { public static var _osdPlaceholderValue: Self { "" } }
extension Bool: _PlaceholderValue { public static var _osdPlaceholderValue: Self { false } }
extension Int: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Int8: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Int16: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Int32: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Int64: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension UInt: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension UInt8: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension UInt16: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension UInt32: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension UInt64: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Double: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Float: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Decimal: _PlaceholderValue { public static var _osdPlaceholderValue: Self { 0 } }
extension Date: _PlaceholderValue { public static var _osdPlaceholderValue: Self { Date(timeIntervalSinceReferenceDate: 0) } }
extension UUID: _PlaceholderValue { public static var _osdPlaceholderValue: Self { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) } }
extension Data: _PlaceholderValue { public static var _osdPlaceholderValue: Self { Data() } }

/// What an `.ephemeral` attribute without an initial value stores in place of the model's value:
/// the type's placeholder (``Placeholder/value(_:declared:)``). Throws, naming the model and property, for
/// a type without one. Called by generated code as a model is written.
public func _osdEphemeralStoredValue<M: PersistentModel, T>(_ model: M, property index: Int) throws -> T {
    do {
        return try Placeholder.value(T.self)
    } catch {
        throw SwiftDataError.modelValidationFailure(
            model: "\(M.self)", property: M.schemaMetadata[index].name,
            reason: "an .ephemeral attribute stores the value a new model starts with, and \(T.self) has none: \(error.reason); give the property an initial value or make it optional")
    }
}
