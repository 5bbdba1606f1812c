import Foundation

/// A type with a value a property reads when its stored value could not be loaded (the store
/// failed, or the row was deleted elsewhere): zero, empty, `nil`. Generated getters use it
/// instead of stopping the process; the context's next fetch or save throws the error.
public protocol _PlaceholderValue {
    static var _osdPlaceholderValue: Self { get }
}

/// The value of a property whose stored value could not be loaded (see ``_PlaceholderValue``).
/// A type without a placeholder has nothing to read, and stops the process with the reason.
public func _osdPlaceholder<M: PersistentModel, T>(_ model: M, property index: Int) -> T {
    if let type = T.self as? any _PlaceholderValue.Type, let value = type._osdPlaceholderValue as? T { return value }
    if let type = T.self as? any CaseIterable.Type, let value = type.allCases.first as? T { return value }
    preconditionFailure("OpenSwiftData: \(M.self).\(M.schemaMetadata[index].name) could not be loaded and \(T.self) has no placeholder value (see the reports above)")
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
