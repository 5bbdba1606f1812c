import Foundation

extension Preferences {
    /// Moves the value stored under `oldName` to `key`, unchanged, in one atomic step.
    ///
    /// Run it at every launch: when nothing is stored under `oldName` it does nothing, and when
    /// `key` already has a value, that value stays and the old one is removed.
    public func migrateKey<Value>(named oldName: String, to key: Key<Value>) throws {
        guard oldName != key.name else { return }
        try update { values in
            guard let old = values[oldName] else { return [:] }
            if values[key.name] != nil { return [oldName: nil] }
            return [oldName: nil, key.name: old]
        }
    }

    /// Converts the value stored for `old` into a value for `new`, in one atomic step: for a key
    /// whose type changes, under the same name or a new one.
    ///
    /// Run it at every launch: when nothing is stored for `old`, or the stored value is already a
    /// `New` under the same name, it does nothing; when `new` has another name and already has a
    /// value, that value stays and the old one is removed.
    ///
    /// - Throws: ``PreferencesError`` with code ``PreferencesError/Code/migrationFailed`` when the
    ///   stored value is neither an `Old` nor (under the same name) a `New`, or `transform` throws.
    ///   Nothing is changed then.
    public func migrate<Old, New>(
        _ old: Key<Old>, to new: Key<New>, transform: (Old) throws -> New
    ) throws {
        try update { values in
            guard let raw = values[old.name] else { return [:] }
            let sameName = old.name == new.name
            if !sameName && values[new.name] != nil { return [old.name: nil] }
            let decoder = JSONDecoder()
            let oldValue: Old
            do {
                oldValue = try decoder.decode(Old.self, from: raw)
            } catch {
                if sameName, (try? decoder.decode(New.self, from: raw)) != nil { return [:] }
                throw PreferencesError(
                    .migrationFailed, key: old.name,
                    reason: "the stored value is not a \(Old.self): \(error)"
                )
            }
            let encoded: Data
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                encoded = try encoder.encode(try transform(oldValue))
            } catch {
                throw PreferencesError(.migrationFailed, key: old.name, reason: "converting to \(New.self): \(error)")
            }
            return sameName ? [new.name: encoded] : [old.name: nil, new.name: encoded]
        }
    }
}
