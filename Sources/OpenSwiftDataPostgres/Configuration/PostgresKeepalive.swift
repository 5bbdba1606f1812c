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
    var idle: Int32? = 30
    /// Seconds between unanswered probes; `nil` for the system's setting.
    var interval: Int32? = 10
    /// Unanswered probes before the connection is closed; `nil` for the system's setting.
    var count: Int32? = 3

    /// The URL's settings: `nil` when `keepalives=0`.
    static func read(_ parameter: (String) -> String?, invalid: (String) -> SwiftDataError) throws -> PostgresKeepalive? {
        func number(_ name: String) throws -> Int32?? {
            guard let text = parameter(name) else { return .none }
            guard let value = Int32(text), value >= 0 else { throw invalid("\(name) \(text) is not a whole number of at least 0") }
            return .some(value == 0 ? nil : value)
        }
        if let switched = parameter("keepalives") {
            guard let on = Int(switched) else { throw invalid("keepalives \(switched) is not 0 or 1") }
            if on == 0 { return nil }
        }
        var keepalive = PostgresKeepalive()
        if let idle = try number("keepalives_idle") { keepalive.idle = idle }
        if let interval = try number("keepalives_interval") { keepalive.interval = interval }
        if let count = try number("keepalives_count") { keepalive.count = count }
        return keepalive
    }
}
