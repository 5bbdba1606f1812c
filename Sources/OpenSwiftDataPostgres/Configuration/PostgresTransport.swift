import Foundation
import OpenSwiftData

/// How a store's connections use TLS, from the configuration's ``PostgresStoreConfiguration/TransportSecurity``
/// and the URL's `sslmode` and `sslrootcert`, which mean what they mean to libpq.
enum PostgresTransport: Sendable, Equatable {
    /// No TLS.
    case plain
    /// TLS without a look at the server's certificate (`sslmode=require`, as in libpq): encrypted,
    /// but not proof against a server that pretends.
    case encrypted
    /// TLS with the server's certificate checked against the system's trust roots, or against the
    /// certificates of `rootCertificates` (a PEM file) when given; its host name too when
    /// `checksHostName` (`verify-full`), only its chain otherwise (`verify-ca`).
    case verified(checksHostName: Bool, rootCertificates: String?)

    /// The transport a configuration asks for, to a server at `host`, given the URL's `sslmode`
    /// and `sslrootcert`; `invalid` makes the error for a problem with the URL. The more careful of
    /// the configuration and the URL wins where they disagree.
    init(security: PostgresStoreConfiguration.TransportSecurity, host: String, mode: String?, roots: String?, invalid: (String) -> SwiftDataError) throws {
        if let roots, !FileManager.default.isReadableFile(atPath: roots) {
            throw invalid("sslrootcert \(roots) is not a readable file")
        }
        let isLoopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
        switch (security, mode) {
        case (.required, let mode):
            self = .verified(checksHostName: mode != "verify-ca", rootCertificates: roots)
        case (_, "require"?):
            // libpq checks the chain when a root certificate file is named.
            self = roots == nil ? .encrypted : .verified(checksHostName: false, rootCertificates: roots)
        case (_, "verify-ca"?):
            self = .verified(checksHostName: false, rootCertificates: roots)
        case (_, "verify-full"?):
            self = .verified(checksHostName: true, rootCertificates: roots)
        case (.disabled, _), (_, "disable"?):
            self = .plain
        case (.automatic, nil), (.automatic, "prefer"?), (.automatic, "allow"?):
            self = isLoopback ? .plain : .verified(checksHostName: true, rootCertificates: roots)
        case (.automatic, let other?):
            throw invalid("sslmode=\(other) is not supported (use disable, require, verify-ca or verify-full)")
        }
    }
}
