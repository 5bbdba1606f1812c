import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP proxy between a store and the PostgreSQL server that loses the connection at a chosen
/// moment: after the server answered a statement and before the answer reaches the store. Cut
/// after a commit's answer, the server kept the transaction and the store cannot know it.
///
/// It reads the server's side of the protocol message by message (a type byte and a length); the
/// store's side passes through untouched. From a statement's completion (`CommandComplete`) to
/// the next `ReadyForQuery`, whose status says whether a transaction is still open, messages are
/// held, then forwarded or, when the cut applies, dropped with both connections.
final class CuttingProxy: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is used only while `lock` is held; the sockets are
    // file descriptors that the pump threads own.

    /// When to cut.
    enum Cut: Sendable {
        /// After a statement that ended a transaction by committing it (`COMMIT`, or a
        /// data-modifying statement run outside a transaction: its own transaction).
        case afterCommit
        /// After any statement inside an open transaction, before it commits.
        case insideTransaction
        /// As the store sends a `COMMIT`: the server never receives it.
        case beforeCommit
        /// After a statement whose completion tag starts with the text (`SELECT`), outside a
        /// transaction.
        case afterAnswer(String)
    }

    /// The port the store connects to, on 127.0.0.1.
    let port: Int
    private let serverPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var pendingCut: Cut?
    private var refusing = false
    private var refusesAfterCut = false
    /// How long the refusal that follows a cut lasts, `nil` until ``refuseConnections(_:)``.
    private var refusalAfterCut: TimeInterval?
    /// When the refusal under way ends by itself, if it does.
    private var refusalEnd: Date?
    private var cutCount = 0
    private var refusalCount = 0

    /// Starts listening on a free loopback port, forwarding to the server's port on 127.0.0.1.
    init(toServerPort port: Int) throws {
        serverPort = port
        let listener = socket(AF_INET, Self.streamType, 0)
        guard listener >= 0 else { throw ProxyError.socket("socket") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw ProxyError.socket("bind") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Cuts the next connection that reaches the moment `cut` names; with `thenRefuse`, new
    /// connections are refused from then on, until ``refuseConnections(_:)`` says otherwise.
    func cut(_ cut: Cut, thenRefuse: Bool = false) {
        lock.withLock {
            pendingCut = cut
            refusesAfterCut = thenRefuse
            refusalAfterCut = nil
        }
    }

    /// Cuts the next connection that reaches the moment `cut` names, then refuses new connections
    /// for `seconds` from the cut: a server out of reach for that long.
    func cut(_ cut: Cut, thenRefuseFor seconds: TimeInterval) {
        lock.withLock {
            pendingCut = cut
            refusesAfterCut = true
            refusalAfterCut = seconds
        }
    }

    /// Withdraws a cut that has not happened yet.
    func disarm() { lock.withLock { pendingCut = nil } }

    /// While `true`, new connections are closed at once, as if the server were down.
    func refuseConnections(_ refuse: Bool) {
        lock.withLock {
            refusing = refuse
            refusalEnd = nil
        }
    }

    /// How many connections were cut.
    var cuts: Int { lock.withLock { cutCount } }

    /// How many new connections were refused.
    var refusals: Int { lock.withLock { refusalCount } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let refused = lock.withLock {
                if refusing, let refusalEnd, Date() >= refusalEnd {
                    refusing = false
                    self.refusalEnd = nil
                }
                if refusing { refusalCount += 1 }
                return refusing
            }
            if refused {
                close(client)
                continue
            }
            guard let server = connectToServer() else {
                close(client)
                continue
            }
            let pair = SocketPair(client: client, server: server)
            Thread { [self] in pumpClient(pair) }.start()
            Thread { [self] in pumpServer(pair) }.start()
        }
    }

    private func connectToServer() -> Int32? {
        let server = socket(AF_INET, Self.streamType, 0)
        guard server >= 0 else { return nil }
        var address = Self.loopback(port: serverPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(server)
            return nil
        }
        return server
    }

    /// Copies bytes from the store to the server until either side closes, or a `COMMIT` the
    /// cut names.
    private func pumpClient(_ pair: SocketPair) {
        defer { pair.finish() }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(pair.client, &buffer, buffer.count)
            guard count > 0 else { return }
            let chunk = buffer[0..<count]
            if Self.contains(chunk, "COMMIT"), takeCut(where: { if case .beforeCommit = $0 { true } else { false } }) { return }
            guard Self.writeAll(chunk, to: pair.server) else { return }
        }
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (bytes.startIndex...(bytes.endIndex - needle.count)).contains { start in
            bytes[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    /// Copies the server's messages to the store, holding each statement's completion until
    /// `ReadyForQuery` says whether to cut.
    private func pumpServer(_ pair: SocketPair) {
        defer { pair.finish() }
        let (server, client) = (pair.server, pair.client)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var pending: [UInt8] = []
        var held: [UInt8] = []
        var lastTag = ""
        while true {
            let count = read(server, &buffer, buffer.count)
            guard count > 0 else { return }
            pending.append(contentsOf: buffer[0..<count])
            var forward: [UInt8] = []
            while pending.count >= 5 {
                let length = Int(pending[1]) << 24 | Int(pending[2]) << 16 | Int(pending[3]) << 8 | Int(pending[4])
                guard pending.count >= 1 + length else { break }
                let message = Array(pending[0..<(1 + length)])
                pending.removeFirst(1 + length)
                switch message[0] {
                case UInt8(ascii: "C"):
                    lastTag = String(decoding: message[5...].prefix { $0 != 0 }, as: UTF8.self)
                    held += message
                case UInt8(ascii: "Z"):
                    let status = message.count > 5 ? message[5] : 0
                    if shouldCut(tag: lastTag, status: status) { return }
                    forward += held + message
                    held = []
                    lastTag = ""
                default:
                    if held.isEmpty { forward += message } else { held += message }
                }
            }
            guard Self.writeAll(forward[...], to: client) else { return }
        }
    }

    private func shouldCut(tag: String, status: UInt8) -> Bool {
        takeCut { cut in
            switch cut {
            case .afterCommit: status == UInt8(ascii: "I") && (tag.hasPrefix("COMMIT") || tag.hasPrefix("INSERT"))
            case .insideTransaction: status == UInt8(ascii: "T") && !tag.isEmpty
            case .beforeCommit: false
            case .afterAnswer(let prefix): status == UInt8(ascii: "I") && tag.hasPrefix(prefix)
            }
        }
    }

    /// Whether the pending cut applies now; if so, it is used up.
    private func takeCut(where applies: (Cut) -> Bool) -> Bool {
        lock.withLock {
            guard let pendingCut, applies(pendingCut) else { return false }
            self.pendingCut = nil
            cutCount += 1
            if refusesAfterCut {
                refusing = true
                refusalEnd = refusalAfterCut.map { Date().addingTimeInterval($0) }
            }
            return true
        }
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    #endif

    /// A store's connection and the proxy's connection to the server. Whichever pump stops
    /// first shuts both down, which stops the other; the last one closes them.
    private final class SocketPair: @unchecked Sendable {
        // @unchecked Sendable: `running` is used only while `lock` is held.
        let client: Int32
        let server: Int32
        private let lock = NSLock()
        private var running = 2

        init(client: Int32, server: Int32) {
            self.client = client
            self.server = server
        }

        func finish() {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            let last = lock.withLock {
                running -= 1
                return running == 0
            }
            if last {
                close(client)
                close(server)
            }
        }
    }

    enum ProxyError: Error {
        case socket(String)
    }
}
