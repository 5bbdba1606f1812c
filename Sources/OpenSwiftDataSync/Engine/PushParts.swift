import Foundation
import OpenSwiftData

/// Splits a batch into the parts a push request may carry (``PushRequest/part``): at most the
/// server's number of changes and about a quarter of its largest body each, so that one save of
/// any size (an import of 100,000 models, a few hundred photos) reaches the server.
enum PushParts {
    /// The changes of each request, in order: the batch itself when it fits in one request or the
    /// server takes no parts (`limits` is `nil`: an older server).
    ///
    /// - Throws: ``SyncError`` naming a model whose change alone is larger than the server takes.
    static func split(_ changes: [SyncChange], limits: PushLimits?) throws(SyncError) -> [[SyncChange]] {
        guard let limits, !changes.isEmpty else { return [changes] }
        let budget = max(limits.bytes / 4, 1)
        let most = max(limits.changes, 1)
        if changes.count <= most, changes.reduce(0, { $0 + largestSize(of: $1) }) <= budget { return [changes] }
        var parts: [[SyncChange]] = []
        var part: [SyncChange] = []
        var size = 0
        for change in changes {
            let changeSize = try exactSize(of: change)
            guard changeSize <= limits.bytes / 2 else {
                throw SyncError(
                    .rejected,
                    "The \(change.entity) \(change.id) takes \(changeSize) bytes to send, and the server takes requests of at most \(limits.bytes) bytes; make its largest values smaller, or let the server take larger requests (SyncServer.maximumRequestSize)")
            }
            if !part.isEmpty, part.count == most || size + changeSize > budget {
                parts.append(part)
                part = []
                size = 0
            }
            part.append(change)
            size += changeSize
        }
        parts.append(part)
        return parts
    }

    /// At least the bytes a change takes in JSON (text escaped six bytes a character at worst,
    /// data in base64), without writing it.
    private static func largestSize(of change: SyncChange) -> Int {
        var size = 256 + change.entity.utf8.count + change.id.utf8.count + change.clocks.count * 96
        for (name, value) in change.values {
            size += name.utf8.count + 16
            switch value {
            case .value(.text(let text)), .value(.json(let text)): size += text.utf8.count * 6
            case .value(.bytes(let data)): size += data.count * 4 / 3 + 4
            case .value: size += 48
            case .reference(let id): size += id.utf8.count * 6 + 16
            case .references(let ids): size += ids.reduce(16) { $0 + $1.utf8.count * 6 + 4 }
            }
        }
        for (name, base) in change.bases { size += name.utf8.count + base.client.utf8.count + 64 }
        return size
    }

    /// The bytes a change takes in JSON.
    private static func exactSize(of change: SyncChange) throws(SyncError) -> Int {
        do {
            return try change.jsonData().count
        } catch {
            throw SyncError(.rejected, "The \(change.entity) \(change.id) cannot be written for the server: \(error)")
        }
    }
}
