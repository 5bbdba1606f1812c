import Foundation

/// What a client sends first: who it is and the models it synchronizes.
package struct HelloRequest: Codable, Sendable {
    package var client: String
    package var schema: SyncSchema

    /// Creates the value from its parts.
    package init(client: String, schema: SyncSchema) {
        self.client = client
        self.schema = schema
    }
}

/// The server's answer to a client it can serve.
package struct HelloResponse: Codable, Sendable {
    /// The user the client's token names.
    package var user: String
    /// The server's schema version.
    package var schemaVersion: String
    /// The most changes one push request may carry, and the largest request body in bytes the
    /// server reads. A server that says takes a larger batch in parts (``PushRequest/part``); an
    /// older one says neither.
    package var pushLimits: PushLimits?

    /// Creates the value from its parts.
    package init(user: String, schemaVersion: String, pushLimits: PushLimits? = nil) {
        self.user = user
        self.schemaVersion = schemaVersion
        self.pushLimits = pushLimits
    }
}

/// What one push request may carry, as a server says in its answer to a hello.
package struct PushLimits: Codable, Hashable, Sendable {
    /// The most changes in one request.
    package var changes: Int
    /// The largest request body, in bytes.
    package var bytes: Int

    /// Creates the value from its parts.
    package init(changes: Int, bytes: Int) {
        self.changes = changes
        self.bytes = bytes
    }
}

/// One model's changes, as a client pushes them: the properties it changed with their clocks, or
/// its deletion.
package struct SyncChange: Codable, Hashable, Sendable {
    package var entity: String
    /// The model's synchronized identifier.
    package var id: String
    /// Whether the model was deleted (its values are then empty).
    package var deleted: Bool
    /// The changed properties' values, by name: every property for a new model.
    package var values: [String: SyncValue]
    /// When each property changed; for a deletion, the clock of the deletion under `""`.
    package var clocks: [String: SyncClock]
    /// Whether the model is new to the server (it then has every property), or an update of one
    /// the server gave or acknowledged; absent from clients that predate it. The server answers
    /// an update of a model it no longer holds (deleted, and its record trimmed) with the
    /// deletion, which wins over any update.
    package var isNew: Bool?
    /// For a new model, the client's batch sequence (``PushRequest/sequence``: its history
    /// transaction) that made it; absent from clients that predate it. A server that applied the
    /// client's batches through that sequence held the model before: when it holds it no longer
    /// (deleted, and its record trimmed), the change is answered with the deletion, as an update
    /// would be, instead of making the model again.
    package var insertedIn: Int64?
    /// For an update, the clock of the value each changed property held on the device when it was
    /// changed there (its base): the value the server or the device itself last gave it. The
    /// server tells a conflict from a change made over its current value by it, and shows a
    /// resolver the base. Absent for properties whose base the device does not know, and from
    /// clients that predate it.
    package var bases: [String: SyncClock]

    /// Creates the value from its parts.
    package init(
        entity: String, id: String, deleted: Bool, values: [String: SyncValue], clocks: [String: SyncClock], isNew: Bool? = nil,
        insertedIn: Int64? = nil, bases: [String: SyncClock] = [:]
    ) {
        self.entity = entity
        self.id = id
        self.deleted = deleted
        self.values = values
        self.clocks = clocks
        self.isNew = isNew
        self.insertedIn = insertedIn
        self.bases = bases
    }

    private enum CodingKeys: String, CodingKey {
        case entity, id, deleted, values, clocks, isNew, insertedIn, bases
    }

    /// Reads a change; `isNew`, `insertedIn` and `bases` may be absent.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            entity: try container.decode(String.self, forKey: .entity), id: try container.decode(String.self, forKey: .id),
            deleted: try container.decode(Bool.self, forKey: .deleted), values: try container.decode([String: SyncValue].self, forKey: .values),
            clocks: try container.decode([String: SyncClock].self, forKey: .clocks), isNew: try container.decodeIfPresent(Bool.self, forKey: .isNew),
            insertedIn: try container.decodeIfPresent(Int64.self, forKey: .insertedIn),
            bases: try container.decodeIfPresent([String: SyncClock].self, forKey: .bases) ?? [:])
    }
}

/// A batch of a client's changes, numbered so that the server applies each batch once.
package struct PushRequest: Codable, Sendable {
    package var client: String
    /// Increases with each batch the client sends; a batch at or below the last one the server
    /// applied for the client is acknowledged without being applied again.
    package var sequence: Int64
    package var changes: [SyncChange]
    /// The server change number the client's store holds everything up to: a row this batch
    /// changes whose previous change the client has already pulled is, after the push and its
    /// corrections, as the client holds it, and its next pull skips it.
    package var cursor: Int64?
    /// For a batch sent in parts (more changes or bytes than one request may carry): this part's
    /// number, from 0. Every part carries the batch's sequence; the server keeps the parts before
    /// the last, and applies the whole batch in one transaction when the last arrives.
    package var part: Int?
    /// For a batch sent in parts: how many parts it has.
    package var parts: Int?

    /// Creates the value from its parts.
    package init(client: String, sequence: Int64, changes: [SyncChange], cursor: Int64? = nil, part: Int? = nil, parts: Int? = nil) {
        self.client = client
        self.sequence = sequence
        self.changes = changes
        self.cursor = cursor
        self.part = part
        self.parts = parts
    }

    /// Whether this is a part of a batch before its last: the server keeps it and applies nothing.
    package var isEarlierPart: Bool {
        guard let part, let parts else { return false }
        return part < parts - 1
    }
}

/// The server's acknowledgment of a batch.
package struct PushResponse: Codable, Sendable {
    /// The batch's sequence number.
    package var sequence: Int64
    /// The server's state of the batch's models where it differs from what the client sent: a
    /// property whose later change came from elsewhere, a model deleted elsewhere.
    package var corrections: [SyncRow]
    /// Properties whose pushed value lost to another's, for the client's list of resolved conflicts.
    package var conflicts: [SyncConflict]
    /// The changes the server's rules refused, none of which was written; each model's state on
    /// the server is among the corrections (a deletion for a model new to the server).
    package var refusals: [SyncRefusal]

    /// Creates the value from its parts.
    package init(sequence: Int64, corrections: [SyncRow], conflicts: [SyncConflict], refusals: [SyncRefusal] = []) {
        self.sequence = sequence
        self.corrections = corrections
        self.conflicts = conflicts
        self.refusals = refusals
    }

    private enum CodingKeys: String, CodingKey {
        case sequence, corrections, conflicts, refusals
    }

    /// Reads an answer; `refusals` may be absent.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            sequence: try container.decode(Int64.self, forKey: .sequence), corrections: try container.decode([SyncRow].self, forKey: .corrections),
            conflicts: try container.decode([SyncConflict].self, forKey: .conflicts),
            refusals: try container.decodeIfPresent([SyncRefusal].self, forKey: .refusals) ?? [])
    }
}

/// A pushed change of one model that the server's rules refused: nothing of it was written, and
/// the device holds the model as the server does again.
public struct SyncRefusal: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The model's name.
    public var entity: String
    /// The model's synchronized identifier.
    public var id: String
    /// Why the server refused the change, in the rules' words.
    public var reason: String

    /// Creates the value from its parts.
    public init(entity: String, id: String, reason: String) {
        self.entity = entity
        self.id = id
        self.reason = reason
    }

    /// The model, its identifier and the reason.
    public var description: String { "\(entity) \(id): \(reason)" }
}

/// A pushed value that lost to another: which, and the clocks that decided it.
public struct SyncConflict: Codable, Hashable, Sendable {
    /// The model's name.
    public var entity: String
    /// The model's synchronized identifier.
    public var id: String
    /// The property, or `""` when the model was deleted elsewhere.
    public var property: String
    /// The clock of the value that lost (this client's).
    public var losing: SyncClock
    /// The clock of the value that won.
    public var winning: SyncClock

    /// Creates the value from its parts.
    public init(entity: String, id: String, property: String, losing: SyncClock, winning: SyncClock) {
        self.entity = entity
        self.id = id
        self.property = property
        self.losing = losing
        self.winning = winning
    }
}

/// A model as the server holds it.
package struct SyncRow: Codable, Hashable, Sendable {
    package var entity: String
    package var id: String
    package var deleted: Bool
    package var values: [String: SyncValue]
    package var clocks: [String: SyncClock]
    /// The server's change number of the row's last change.
    package var version: Int64

    /// Creates the value from its parts.
    package init(entity: String, id: String, deleted: Bool, values: [String: SyncValue], clocks: [String: SyncClock], version: Int64) {
        self.entity = entity
        self.id = id
        self.deleted = deleted
        self.values = values
        self.clocks = clocks
        self.version = version
    }
}

/// A page of the rows that changed after a cursor.
package struct PullResponse: Codable, Sendable {
    package var rows: [SyncRow]
    /// The cursor after these rows.
    package var cursor: Int64
    /// Whether no row changed after `cursor` when the page was read.
    package var upToDate: Bool
    /// Whether the server no longer keeps every change after the cursor asked for (it trimmed
    /// deletions made since): the client downloads everything again, from cursor 0.
    package var reset: Bool?
    /// For a page of a download from the start (a pull without a client), the last change number
    /// of the user's trimmed deletions when the page was read (0 when none was trimmed); absent
    /// from servers that predate it. A download during which it grows starts over: the trim may
    /// have removed the deletion of a model an earlier page brought, which no later page brings.
    package var trimmedThrough: Int64?

    /// Creates the value from its parts.
    package init(rows: [SyncRow], cursor: Int64, upToDate: Bool, reset: Bool? = nil, trimmedThrough: Int64? = nil) {
        self.rows = rows
        self.cursor = cursor
        self.upToDate = upToDate
        self.reset = reset
        self.trimmedThrough = trimmedThrough
    }
}

/// What the server says of a request it refused.
package struct SyncProblem: Codable, Sendable, Error {
    /// A code: `unauthorized`, `badRequest`, `schema`, `resetRequired`, `unavailable`.
    package var code: String
    package var message: String

    /// Creates the value from its parts.
    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// The HTTP paths of the protocol.
package enum SyncPath {
    package static let hello = "/v1/hello"
    package static let push = "/v1/push"
    package static let changes = "/v1/changes"
    /// `POST` shares a model or stops sharing it (``ShareRequest``); `GET` lists the user's shares
    /// (`?id=` those of one model).
    package static let shares = "/v1/shares"
}
