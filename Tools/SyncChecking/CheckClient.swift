import Foundation
import OpenSwiftData
import OpenSwiftDataSync

/// One client of a check run: random inserts, changes, deletions and relationship changes on its
/// store, synchronizing now and then, each committed write appended to its log. With several
/// servers (processes behind one database), it moves from one to the next as a client behind a
/// round-robin balancer would: after each synchronization, or now and then when continuous.
public struct CheckClient {
    /// The servers, one or more, all serving the same database and namespace.
    public var serverURLs: [URL]
    public var storeURL: URL
    public var logURL: URL
    public var seed: UInt64
    public var operations: Int
    /// Whether the client synchronizes continuously (``SyncEngine/start()``) while it works, rather
    /// than now and then.
    public var synchronizesContinuously: Bool
    /// The token of the client's user.
    public var token: String
    /// The users the client shares its groups with now and then, with their permissions (and
    /// stops sharing with): empty for a client that shares nothing.
    public var sharesWith: [(user: String, permission: SyncSharePermission)]

    public init(
        serverURLs: [URL], storeURL: URL, logURL: URL, seed: UInt64, operations: Int, synchronizesContinuously: Bool = false,
        token: String = CheckRun.token, sharesWith: [(user: String, permission: SyncSharePermission)] = []
    ) {
        self.serverURLs = serverURLs
        self.storeURL = storeURL
        self.logURL = logURL
        self.seed = seed
        self.operations = operations
        self.synchronizesContinuously = synchronizesContinuously
        self.token = token
        self.sharesWith = sharesWith
    }

    /// An engine for each server, in order: one synchronizes at a time.
    private func engines(_ container: ModelContainer) throws -> [SyncEngine] {
        guard !serverURLs.isEmpty else { throw SyncError(.unreachable, "The check client was given no server") }
        return serverURLs.map {
            SyncEngine(container: container, configuration: SyncConfiguration(serverURL: $0, token: token, pullPageSize: pullPageSize, requestTimeout: 10))
        }
    }

    /// The most rows a page of this client's pulls holds, from its seed: mostly small, so that a
    /// pull is applied in several transactions (a kill may come between them) and relationships
    /// wait for models a later page brings. The final drains (seed 0) pull pages of five rows.
    private var pullPageSize: Int { [5, 2, 40, 2000][Int((seed >> 16) % 4)] }

    /// Runs the operations; a failed synchronization (the server restarting) is retried later.
    public func run() async throws {
        let container = try ModelContainer(for: Schema(checkModels), configurations: ModelConfiguration(url: storeURL))
        let engines = try engines(container)
        var current = Int(seed % UInt64(engines.count))
        var random = SplitMix(seed: seed)
        let log = try WriteLog(url: logURL)
        if synchronizesContinuously { engines[current].start() }
        var noted: Set<String> = []
        for _ in 0..<operations {
            try await noteRefusals(engines, noted: &noted)
            let context = ModelContext(container)
            let items = try context.fetch(FetchDescriptor<CheckItem>(sortBy: [SortDescriptor(\.key)]))
            let groups = try context.fetch(FetchDescriptor<CheckGroup>(sortBy: [SortDescriptor(\.key)]))
            var writes: [CheckWrite] = []
            switch random.next(100) {
            case 0..<25:
                let item = CheckItem(key: UUID().uuidString, label: "l\(random.next(1000))", count: Int(random.next(1000)), score: Double(random.next(1000)) / 8)
                context.insert(item)
                writes = [("label", item.label), ("count", "\(item.count)"), ("score", "\(item.score)")].map {
                    CheckWrite(key: item.key, property: $0.0, value: $0.1, makes: true)
                }
            case 25..<32:
                let group = CheckGroup(key: UUID().uuidString, name: "g\(random.next(1000))")
                context.insert(group)
                writes = [CheckWrite(key: group.key, property: "name", value: group.name, makes: true)]
            case 32..<70 where !items.isEmpty:
                let item = items[Int(random.next(UInt64(items.count)))]
                switch random.next(3) {
                case 0:
                    item.label = "l\(random.next(1000))"
                    writes = [CheckWrite(key: item.key, property: "label", value: item.label)]
                case 1:
                    item.count = Int(random.next(1000))
                    writes = [CheckWrite(key: item.key, property: "count", value: "\(item.count)")]
                default:
                    item.score = Double(random.next(1000)) / 8
                    writes = [CheckWrite(key: item.key, property: "score", value: "\(item.score)")]
                }
            case 70..<80 where !items.isEmpty:
                let item = items[Int(random.next(UInt64(items.count)))]
                let group = groups.isEmpty || random.next(4) == 0 ? nil : groups[Int(random.next(UInt64(groups.count)))]
                item.group = group
                writes = [CheckWrite(key: item.key, property: "group", value: group?.key ?? "nil")]
            case 80..<86 where !items.isEmpty:
                let item = items[Int(random.next(UInt64(items.count)))]
                writes = [.deletion(of: item.key)]
                context.delete(item)
            case 86..<88 where !groups.isEmpty:
                let group = groups[Int(random.next(UInt64(groups.count)))]
                writes = [.deletion(of: group.key)]
                context.delete(group)
            case 88..<94 where !sharesWith.isEmpty && !groups.isEmpty:
                // Shares a group (with its items) with another user, or stops sharing it. The
                // group may be another user's, deleted meanwhile, or not shared: the server says so.
                let group = groups[Int(random.next(UInt64(groups.count)))]
                let (user, permission) = sharesWith[Int(random.next(UInt64(sharesWith.count)))]
                if random.next(3) == 0 {
                    _ = try? await engines[current].stopSharing(group, with: user)
                } else {
                    _ = try? await engines[current].share(group, with: user, permission: permission)
                }
                continue
            default:
                if synchronizesContinuously {
                    if engines.count > 1, random.next(4) == 0 {
                        await engines[current].stop()
                        current = (current + 1) % engines.count
                        engines[current].start()
                    }
                    // The engine pushes the saves and applies what the server announces meanwhile.
                    try await Task.sleep(for: .milliseconds(Int(random.next(30))))
                } else {
                    _ = try? await engines[current].sync()
                    current = (current + 1) % engines.count
                }
                continue
            }
            try log.begin(writes)
            try context.save()
            try log.commit(writes)
        }
        await engines[current].stop()
        _ = try? await engines[current].sync()
        try await noteRefusals(engines, noted: &noted)
    }

    /// Appends the models the server refused changes of (by synchronized identifier) to the
    /// client's refusals file (`<log>.refused`): with shares, a change is refused whole, also the
    /// properties the client changed beside the one refused.
    private func noteRefusals(_ engines: [SyncEngine], noted: inout Set<String>) async throws {
        var ids: [String] = []
        for engine in engines {
            for refusal in await engine.refusedChanges where noted.insert(refusal.id).inserted { ids.append(refusal.id) }
        }
        guard !ids.isEmpty else { return }
        let url = URL(fileURLWithPath: logURL.path + ".refused")
        if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(ids.map { $0 + "\n" }.joined().utf8))
        try handle.close()
    }

    /// Synchronizes until a synchronization succeeds (a server may be restarting), trying each
    /// server in turn, then notes the refusals the store keeps (a process killed after a refused
    /// push and before it noted the refusal notes it here).
    public func drain() async throws {
        let container = try ModelContainer(for: Schema(checkModels), configurations: ModelConfiguration(url: storeURL))
        let engines = try engines(container)
        var lastError: (any Error)?
        for attempt in 0..<100 {
            do {
                let engine = engines[attempt % engines.count]
                try await engine.sync()
                var noted: Set<String> = []
                try await noteRefusals([engine], noted: &noted)
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? SyncError(.unreachable, "The server could not be reached")
    }

    /// The store's models, as the checker compares them.
    public func dump() throws -> CheckState {
        let container = try ModelContainer(for: Schema(checkModels), configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(container)
        var state = CheckState()
        for group in try context.fetch(FetchDescriptor<CheckGroup>()) {
            state.rows[group.key] = ["name": group.name]
        }
        for item in try context.fetch(FetchDescriptor<CheckItem>()) {
            state.rows[item.key] = ["label": item.label, "count": "\(item.count)", "score": "\(item.score)", "group": item.group?.key ?? "nil"]
        }
        return state
    }
}

/// One write of a client: a model (by key), a property (`""` for a deletion), a value. Its log
/// records the write as begun, then as committed (``LoggedWrite``): a kill between the two leaves
/// a write that may or may not have committed.
public struct CheckWrite: Codable, Hashable, Sendable {
    /// The key of the model written.
    public var key: String
    /// The property written, or `""` for the model's deletion.
    public var property: String
    /// The value written, as text (`"nil"` for no related model, `"deleted"` for a deletion).
    public var value: String
    /// Whether the write's save made the model (`nil` when it changed or deleted one): a model
    /// there at the end proves such a save committed, even one a kill cut off.
    public var makes: Bool?

    /// A write of `value` to `property` of the model `key`; `makes` when its save made the model.
    public init(key: String, property: String, value: String, makes: Bool? = nil) {
        self.key = key
        self.property = property
        self.value = value
        self.makes = makes
    }

    /// The deletion of the model `key` names.
    static func deletion(of key: String) -> CheckWrite { CheckWrite(key: key, property: "", value: "deleted") }

    /// Whether the write deletes its model.
    var isDeletion: Bool { property.isEmpty }

    /// Whether the write's save made its model.
    var makesModel: Bool { makes == true }
}

/// The models of a store, by key: each property's value as text.
public struct CheckState: Codable, Equatable, Sendable {
    public var rows: [String: [String: String]] = [:]
}

/// A client's log of its writes, two JSON lines per save: the save's writes marked as begun
/// (`?` before the line) before it commits, and again, unmarked, after. A kill between the
/// commit and the second line leaves a save that may or may not have committed: its writes read
/// as uncertain (``LoggedWrite/isCertain``), and the checker accepts either them or the writes
/// they would have replaced as what reached the server. (With one line after the commit, such a
/// save went unrecorded, and the write it replaced, rightly never pushed, read as lost.)
struct WriteLog {
    let handle: FileHandle

    init(url: URL) throws {
        if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
    }

    /// Records a save's writes before it commits.
    func begin(_ writes: [CheckWrite]) throws {
        try append(writes, marker: "?")
    }

    /// Records that the save begun with `writes` committed.
    func commit(_ writes: [CheckWrite]) throws {
        try append(writes, marker: nil)
    }

    private func append(_ writes: [CheckWrite], marker: Character?) throws {
        var data = Data(marker.map { String($0) }?.utf8 ?? "".utf8)
        data.append(try JSONEncoder().encode(writes))
        data.append(0x0A)
        try handle.write(contentsOf: data)
    }

    /// The log's writes in order: those of each save that committed, and, uncertain, those of a
    /// save begun and not recorded as committed (the process was killed in between).
    static func read(_ url: URL) throws -> [LoggedWrite] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        var written: [LoggedWrite] = []
        var begun: [CheckWrite] = []
        for line in data.split(separator: 0x0A) {
            // A line cut short by a kill records nothing: a save's begun line cut short never
            // committed, and one's committed line cut short leaves it uncertain.
            if line.first == UInt8(ascii: "?") {
                written += begun.map { LoggedWrite(write: $0, isCertain: false) }
                begun = (try? JSONDecoder().decode([CheckWrite].self, from: Data(line.dropFirst()))) ?? []
            } else if let committed = try? JSONDecoder().decode([CheckWrite].self, from: Data(line)) {
                written += committed.map { LoggedWrite(write: $0, isCertain: true) }
                begun = []
            }
        }
        return written + begun.map { LoggedWrite(write: $0, isCertain: false) }
    }
}

/// A write as a client's log tells it.
struct LoggedWrite: Equatable {
    /// The write.
    var write: CheckWrite
    /// Whether the write's save is recorded as committed; `false` for a save a kill cut off
    /// between beginning and being recorded, which may or may not have committed.
    var isCertain: Bool
}

/// A small seeded generator, the same on every platform.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(_ bound: UInt64) -> UInt64 { next() % max(bound, 1) }
}
