/// Writing a model's properties to a store's statement so that a value that cannot be written
/// (a `Codable` value whose encoding throws, a transformer that makes no `Data`) is reported as
/// `modelValidationFailure` naming the model and the property. Every store writes through it.
package enum PropertyEncoding {
    /// Writes one property of `model`; a failure of the value itself, as opposed to one of the
    /// store, names the model and property.
    package static func encode(
        _ model: any PersistentModel, property index: Int, of entity: Schema.Entity, to writer: some _RowWriter,
        at column: Int32, deferring links: _DeferredLinks
    ) throws {
        do {
            try model._osdEncode(property: index, to: writer, at: column, deferring: links)
        } catch let error as SwiftDataError {
            throw error
        } catch let error as any StoreReportedError {
            throw error
        } catch {
            throw SwiftDataError.modelValidationFailure(model: entity.name, property: entity.fields[index].name, reason: "\(error)")
        }
    }

    /// Writes a value of a property, as a model's property of its type is written (an update by
    /// predicate); a failure of the value names the model and property.
    package static func encode(
        _ value: any _PersistentScalar, property index: Int, of entity: Schema.Entity, to writer: some _RowWriter, at column: Int32
    ) throws {
        do {
            try value._osdWrite(to: writer, column)
        } catch let error as SwiftDataError {
            throw error
        } catch let error as any StoreReportedError {
            throw error
        } catch {
            throw SwiftDataError.modelValidationFailure(model: entity.name, property: entity.fields[index].name, reason: "\(error)")
        }
    }

    /// Writes every property of `model` at its index (the store's fast path), and after a
    /// failure writes `properties` (the ones with a column) again one by one to name the one
    /// whose value fails.
    package static func encodeAll<Writer: _RowWriter>(
        _ model: any PersistentModel, of entity: Schema.Entity, properties: @autoclosure () -> [Int], to writer: Writer, deferring links: _DeferredLinks
    ) throws {
        do {
            try model._osdEncodeAll(to: writer, startingAt: 0, deferring: links)
        } catch {
            for index in properties() {
                try encode(model, property: index, of: entity, to: writer, at: Int32(index), deferring: _DeferredLinks())
            }
            throw error
        }
    }
}
