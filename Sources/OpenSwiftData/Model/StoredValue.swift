/// A value as a store holds it, after the same encoding that model properties go through.
///
/// Predicates capture Swift values; the query layer encodes them into stored values so that the
/// store compares like with like (a `Decimal` as its ordered bytes, a `UUID` as 16 bytes, …).
package enum StoredValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// Encodes a Swift value the way a property of its type is stored, or returns `nil` if the type
    /// has no native storage.
    static func encoding(_ value: Any) -> StoredValue? {
        let recorder = StoredValueRecorder()
        if let scalar = value as? any _PersistentScalar {
            do {
                try scalar._osdWrite(to: recorder, 0)
            } catch {
                return nil
            }
            return recorder.value
        }
        return nil
    }
}

/// A writer that records the one value written to it.
private final class StoredValueRecorder: _RowWriter {
    var value: StoredValue = .null
    func _bindNull(_ column: Int32) { value = .null }
    func _bind(_ value: Int64, _ column: Int32) { self.value = .integer(value) }
    func _bind(_ value: Double, _ column: Int32) { self.value = .real(value) }
    func _bind(_ value: String, _ column: Int32) { self.value = .text(value) }
    func _bind(bytes: UnsafeRawBufferPointer, _ column: Int32) { value = .blob(Array(bytes)) }
}
