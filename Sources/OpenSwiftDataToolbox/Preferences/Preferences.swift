import Foundation
import Observation

/// Typed preferences: small values an app keeps between launches, read and written by key.
///
/// ```swift
/// let preferences = Preferences(fileURL: directories.preferences.appendingPathComponent("settings.json"))
/// let enabled = preferences[.notificationsEnabled]
/// try preferences.set(false, for: .notificationsEnabled)
/// for await enabled in preferences.changes(of: .notificationsEnabled) { … }
/// ```
///
/// A value is stored as its `Codable` encoding and decoded with the key's type when read. A stored
/// value that doesn't decode gives the key's default and a ``PreferencesError`` to the handlers of
/// ``errors()`` — and stays stored as it was until it's written with a new value.
///
/// Reads see what other processes wrote to the same storage: each read makes a cheap check
/// (``PreferencesStorage/mayHaveChanged()``) and rereads when the storage changed. While a
/// ``changes(of:)`` sequence is iterated, the storage is also checked five times a second, so that
/// another process's change reaches it without a read.
///
/// `Preferences` is `Observable`: a view or `withObservationTracking` that reads a value is told
/// when a value changes.
public final class Preferences: Observable, Sendable {
    /// Where the values are stored.
    public let storage: any PreferencesStorage
    private let state = Locked(State())
    private let registrar = ObservationRegistrar()

    private struct State {
        var values: [String: Data]?
        var decoded: [String: any Sendable] = [:]
        var reportedFailures: Set<String> = []
        var revision = 0
        var observers: [UUID: Observer] = [:]
        var errorObservers: [UUID: AsyncStream<PreferencesError>.Continuation] = [:]
        var lastError: PreferencesError?
        var watcher: Task<Void, Never>?
    }

    private struct Observer {
        var key: String
        var deliver: @Sendable (Preferences) -> Void
    }

    /// Creates preferences kept in the given storage.
    public init(storage: any PreferencesStorage) {
        self.storage = storage
    }

    /// Creates preferences kept in a JSON file at `fileURL` (see ``FilePreferencesStorage``).
    public convenience init(fileURL: URL) {
        self.init(storage: FilePreferencesStorage(url: fileURL))
    }

    deinit {
        state.withLock { $0.watcher?.cancel() }
    }

    /// A number that changes whenever a stored value changes; reading it registers observation.
    var revision: Int {
        registrar.access(self, keyPath: \.revision)
        return state.withLock { $0.revision }
    }

    // MARK: Reading

    /// Returns the stored value for `key`, or the key's default when none is stored or the stored
    /// value can't be decoded as `Value` (which is reported to ``errors()``).
    public func value<Value>(for key: Key<Value>) -> Value {
        do {
            return try storedValue(for: key) ?? key.defaultValue
        } catch let error as PreferencesError {
            report(error, once: true)
            return key.defaultValue
        } catch {
            report(PreferencesError(.fileAccess, key: key.name, reason: "\(error)"), once: true)
            return key.defaultValue
        }
    }

    /// Returns the stored value for `key`, or `nil` when none is stored.
    ///
    /// - Throws: ``PreferencesError`` when the stored value isn't a `Value`
    ///   (``PreferencesError/Code/valueNotDecodable``) or the storage can't be read.
    public func storedValue<Value>(for key: Key<Value>) throws -> Value? {
        registrar.access(self, keyPath: \.revision)
        let (raw, cached) = try current { ($0.values?[key.name], $0.decoded[key.name]) }
        guard let raw else { return nil }
        if let cached = cached as? Value { return cached }
        do {
            let value = try JSONDecoder().decode(Value.self, from: raw)
            state.withLock { $0.decoded[key.name] = value }
            return value
        } catch {
            throw PreferencesError(
                .valueNotDecodable, key: key.name,
                reason: "the stored value \(String(decoding: raw.prefix(200), as: UTF8.self)) is not a \(Value.self): \(error)"
            )
        }
    }

    /// Returns whether a value is stored for the key with this name.
    public func contains(_ name: String) throws -> Bool {
        try current { $0.values?[name] != nil }
    }

    /// The names of every stored key, sorted.
    public func storedKeys() throws -> [String] {
        try current { ($0.values ?? [:]).keys.sorted() }
    }

    /// Accesses the value for `key`; setting reports a failure to ``errors()`` instead of throwing
    /// (use ``set(_:for:)`` to handle it where it happens).
    public subscript<Value>(key: Key<Value>) -> Value {
        get { value(for: key) }
        set {
            do {
                try set(newValue, for: key)
            } catch let error as PreferencesError {
                report(error, once: false)
            } catch {
                report(PreferencesError(.fileAccess, key: key.name, reason: "\(error)"), once: false)
            }
        }
    }

    // MARK: Writing

    /// Stores `value` for `key`.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws {
        let encoded: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoded = try encoder.encode(value)
        } catch {
            throw PreferencesError(.valueNotEncodable, key: key.name, reason: "\(error)")
        }
        try update { _ in [key.name: encoded] }
    }

    /// Removes the stored value for `key`, so that reads give its default again.
    public func removeValue<Value>(for key: Key<Value>) throws {
        try removeValue(named: key.name)
    }

    /// Removes the stored value of the key with this name, whatever its type.
    public func removeValue(named name: String) throws {
        try update { values in values[name] == nil ? [:] : [name: nil] }
    }

    /// Changes several stored values in one atomic step, given the JSON text of the values stored
    /// now: the basis of key migrations.
    func update(_ changes: ([String: Data]) throws -> [String: Data?]) throws {
        var problems: [PreferencesError] = []
        let values = try storage.update(changes, report: { problems.append($0) })
        problems.forEach { report($0, once: false) }
        adopt(values)
    }

    // MARK: Observing

    /// Returns the values of `key`: its value now, then its value after each change, made here or
    /// by another process on the same storage.
    public func changes<Value>(of key: Key<Value>) -> AsyncStream<Value> {
        AsyncStream { continuation in
            let id = UUID()
            let name = key.name
            state.withLock { state in
                state.observers[id] = Observer(key: name) { preferences in
                    continuation.yield(preferences.value(for: key))
                }
                if state.watcher == nil {
                    state.watcher = Task.detached { [weak self] in
                        do {
                            while true {
                                try await Task.sleep(nanoseconds: 200_000_000)
                                self?.refreshIfChanged()
                            }
                        } catch {
                            // Cancelled: the last stream ended.
                        }
                    }
                }
            }
            // After registering: a change made meanwhile is delivered twice rather than missed.
            continuation.yield(value(for: key))
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { state in
                    state.observers[id] = nil
                    if state.observers.isEmpty {
                        state.watcher?.cancel()
                        state.watcher = nil
                    }
                }
            }
        }
    }

    /// Returns the problems this instance meets from now on: values that don't decode, writes of
    /// the subscript that fail, a damaged file moved aside.
    public func errors() -> AsyncStream<PreferencesError> {
        AsyncStream { continuation in
            let id = UUID()
            state.withLock { $0.errorObservers[id] = continuation }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { $0.errorObservers[id] = nil }
            }
        }
    }

    /// Rereads the storage now if it changed, telling observers of the keys whose values changed.
    public func refreshIfChanged() {
        guard storage.mayHaveChanged() else { return }
        do {
            adopt(try storage.load())
        } catch let error as PreferencesError {
            report(error, once: true)
        } catch {
            report(PreferencesError(.fileAccess, key: nil, reason: "\(error)"), once: true)
        }
    }

    // MARK: State

    /// Runs `body` on the values as stored now, loading them first when the storage changed.
    private func current<Result>(_ body: (State) -> Result) throws -> Result {
        let loaded = state.withLock { $0.values != nil }
        if !loaded || storage.mayHaveChanged() {
            adopt(try storage.load())
        }
        return state.withLock { body($0) }
    }

    /// Makes `values` the current values, and tells observers of the keys that changed.
    private func adopt(_ values: [String: Data]) {
        let (changed, observers) = state.withLock { state -> (Set<String>, [Observer]) in
            let old = state.values ?? [:]
            var changed = Set<String>()
            for (key, value) in values where old[key] != value { changed.insert(key) }
            for key in old.keys where values[key] == nil { changed.insert(key) }
            state.values = values
            guard !changed.isEmpty else { return ([], []) }
            for key in changed {
                state.decoded[key] = nil
            }
            state.reportedFailures = state.reportedFailures.filter { !changed.contains($0) && !$0.isEmpty }
            return (changed, state.observers.values.filter { changed.contains($0.key) })
        }
        guard !changed.isEmpty else { return }
        registrar.withMutation(of: self, keyPath: \.revision) {
            state.withLock { $0.revision += 1 }
        }
        for observer in observers {
            observer.deliver(self)
        }
    }

    /// The last problem this instance met, also delivered to ``errors()``.
    public var lastError: PreferencesError? {
        state.withLock { $0.lastError }
    }

    private func report(_ error: PreferencesError, once: Bool) {
        let observers = state.withLock { state -> [AsyncStream<PreferencesError>.Continuation] in
            state.lastError = error
            if once {
                let token = error.key ?? ""
                guard !state.reportedFailures.contains(token) else { return [] }
                state.reportedFailures.insert(token)
            }
            return Array(state.errorObservers.values)
        }
        for observer in observers {
            observer.yield(error)
        }
    }
}
