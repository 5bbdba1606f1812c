import OpenSwiftDataSync

/// Checks a pushed batch (or one part of it) against the server's models before anything is
/// written: every model and property known, every value of its property's kind, clocks for every
/// value, at most `limit` changes, a part number within the parts. The first problem is thrown,
/// naming the model and property.
struct SyncValidation {
    let schema: SyncSchema
    let limit: Int
    /// The most parts one batch may come in (``PushRequest/parts``).
    static let maximumParts = 10_000

    func check(_ request: PushRequest) throws {
        guard request.changes.count <= limit else {
            throw SyncProblem(code: "badRequest", message: "The batch has \(request.changes.count) changes; the server takes at most \(limit) per push")
        }
        guard !request.client.isEmpty, request.client.count <= 200, request.sequence > 0 else {
            throw SyncProblem(code: "badRequest", message: "A push names its client and a positive sequence number")
        }
        if request.part != nil || request.parts != nil {
            guard let part = request.part, let parts = request.parts, parts >= 2, parts <= Self.maximumParts, part < parts else {
                throw SyncProblem(
                    code: "badRequest",
                    message: "A push in parts names its part (from 0) and how many parts there are, from 2 to \(Self.maximumParts)")
            }
        }
        var seen: Set<String> = []
        for change in request.changes {
            guard let entity = schema.entity(named: change.entity) else {
                throw SyncProblem(code: "badRequest", message: "The model \(change.entity) is unknown to the server")
            }
            guard !change.id.isEmpty, change.id.count <= 200 else {
                throw SyncProblem(code: "badRequest", message: "A \(change.entity) has an empty or overlong identifier")
            }
            guard seen.insert(change.id).inserted else { throw Self.twice(change) }
            if change.deleted {
                guard change.values.isEmpty, change.clocks[""] != nil else {
                    throw SyncProblem(code: "badRequest", message: "The deletion of \(change.entity) \(change.id) carries values or lacks its clock")
                }
                continue
            }
            let properties = Dictionary(entity.properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for (name, value) in change.values {
                guard let property = properties[name] else {
                    throw SyncProblem(code: "badRequest", message: "\(change.entity).\(name) is not a property the server knows")
                }
                if let problem = property.problem(with: value) {
                    throw SyncProblem(code: "badRequest", message: "\(change.entity).\(name) \(problem)")
                }
                guard change.clocks[name] != nil else {
                    throw SyncProblem(code: "badRequest", message: "\(change.entity).\(name) has a value without a clock")
                }
            }
        }
    }

    /// Checks that no model appears twice in a batch gathered from parts, each checked whole by
    /// ``check(_:)`` as it came.
    static func checkEachModelOnce(_ changes: [SyncChange]) throws {
        var seen: Set<String> = []
        for change in changes where !seen.insert(change.id).inserted { throw twice(change) }
    }

    private static func twice(_ change: SyncChange) -> SyncProblem {
        SyncProblem(code: "badRequest", message: "The \(change.entity) \(change.id) appears twice in the batch")
    }
}
