import OpenSwiftData

/// How a store's TCP connections notice a server that went silent: TCP keepalive probes, set by
/// the URL's libpq parameters `keepalives`, `keepalives_idle`, `keepalives_interval` and
/// `keepalives_count`.
///
/// A statement waits for the server's answer for as long as the connection lives. When the
/// network between them fails without closing it (a cable pulled, a host powered off, a firewall
/// dropping an idle flow), nothing else ends that wait; with probes, the system closes the
/// connection after `idle + interval × count` seconds of silence and the statement throws
/// ``SwiftDataError/storeUnavailable``. libpq turns probes on with the system's timing (on Linux,
/// two hours of silence); OpenSwiftData, whose stores serve requests, defaults to 30 seconds of
/// silence, then a probe every 10 seconds, and gives up after 3 unanswered ones (about a minute).
/// A value of 0 keeps the system's setting, as in libpq; `keepalives=0` turns probes off.
struct PostgresKeepalive: Sendable, Equatable {
    /// Seconds of silence before the first probe; `nil` for the system's setting.
    var idle: Int32?
    /// Seconds between unanswered probes; `nil` for the system's setting.
    var interval: Int32?
    /// Unanswered probes before the connection is closed; `nil` for the system's setting.
    var count: Int32?

    /// The URL's settings, OpenSwiftData's defaults where it gives none: `nil` when
    /// `keepalives=0`.
    static func read(_ parameter: (String) -> String?, invalid: (String) -> SwiftDataError) throws -> PostgresKeepalive? {
        if let switched = parameter("keepalives") {
            guard let on = Int(switched) else { throw invalid("keepalives \(switched) is not 0 or 1") }
            if on == 0 { return nil }
        }
        /// A setting: its default when the URL gives none, `nil` (the system's) for 0.
        func setting(_ name: String, default value: Int32) throws -> Int32? {
            guard let text = parameter(name) else { return value }
            guard let number = Int32(text), number >= 0 else { throw invalid("\(name) \(text) is not a whole number of at least 0") }
            return number == 0 ? nil : number
        }
        return PostgresKeepalive(
            idle: try setting("keepalives_idle", default: 30), interval: try setting("keepalives_interval", default: 10),
            count: try setting("keepalives_count", default: 3))
    }
}
