import Foundation
import OpenSwiftData

/// Runs synchronizations one at a time: the handshake, pushes until nothing is pending, pulls
/// until up to date, and the status after each step.
actor SyncWorker {
    let container: ModelContainer
    let configuration: SyncConfiguration
    let status: SyncStatus
    let transport: SyncTransport
    private let onStatusChange: @Sendable () -> Void
    private let entities: [String: ReplicatedEntity]
    private let schema: SyncSchema
    /// Whether the server accepted the client's schema (asked once per engine, again after a failure).
    private var greeted = false
    /// What one push request may carry, as the server said in its answer to the hello; `nil` for a
    /// server that takes no batch in parts.
    private var pushLimits: PushLimits?
    /// The pushed values that lost to others', most recent last, as the store keeps them (read at
    /// the first synchronization).
    private var keptConflicts = KeptResolutions<SyncConflict>(domain: "sync.conflicts")
    /// The pushed changes the server's rules refused, most recent last, as the store keeps them.
    private var keptRefusals = KeptResolutions<SyncRefusal>(domain: "sync.refusals")
    /// Whether the kept lists were read from the store.
    private var loadedResolutions = false
    /// The refusals of the synchronization that runs.
    private var refusedNow: [SyncRefusal] = []
    /// One synchronization at a time: the actor's methods suspend at each request.
    private var running = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(container: ModelContainer, configuration: SyncConfiguration, status: SyncStatus, onStatusChange: @escaping @Sendable () -> Void) {
        self.container = container
        self.configuration = configuration
        self.status = status
        self.onStatusChange = onStatusChange
        self.transport = SyncTransport(configuration: configuration)
        let synchronized = container.replicatedEntities.filter { !configuration.excludedModels.contains($0.name) }
        self.entities = Dictionary(synchronized.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.schema = SyncSchema(StoredSchema(container.schema), excluding: configuration.excludedModels)
    }

    /// Pushes everything pending, then pulls until up to date.
    ///
    /// - Parameter prefetched: A page of changes the server already answered a pull after a
    ///   cursor with (a wait for changes that ended); the pull starts with it instead of asking
    ///   again when the store's cursor is still that one.
    func synchronize(startingWith prefetched: PrefetchedPage? = nil) async throws {
        await acquire()
        defer { release() }
        update { $0.isSyncing = true }
        do {
            // Another engine on the store file (in this process or another) synchronizes first.
            let storeLock = try await SyncStoreLock.acquire(for: container)
            defer { storeLock.release() }
            let store = try storeFailure { try container.replicationStore(for: "SyncEngine") }
            let outbox = Outbox(store: store, author: configuration.author, entities: entities)
            if !loadedResolutions {
                try storeFailure {
                    keptConflicts = try .load(domain: keptConflicts.domain, from: store)
                    keptRefusals = try .load(domain: keptRefusals.domain, from: store)
                }
                loadedResolutions = true
            }
            try await greet(store)
            // A page read before this push may hold rows the push changed since: it is read again.
            refusedNow = []
            let pushed = try await pushAll(store, outbox: outbox)
            try await pullAll(store, outbox: outbox, startingWith: pushed ? nil : prefetched)
            let state = try storeFailure { try SyncState.load(from: store).state }
            let pending = try storeFailure { try outbox.pendingChangeCount(after: state.pushedThrough) }
            let refused = Self.refusedError(refusedNow)
            update {
                $0.pendingChangeCount = pending
                $0.isUpToDate = pending == 0
                $0.lastSyncDate = Date()
                $0.lastError = refused
                $0.isSyncing = false
            }
            // Everything else was pushed and pulled; the caller learns what the server refused.
            if let refused { throw refused }
        } catch let refused as SyncError where refused.kind == .refused {
            throw refused
        } catch {
            let failure = error as? SyncError ?? SyncError(.storeFailure, "\(error)")
            if failure.kind != .storeFailure { greeted = false }
            let pending = try? pendingChangeCount()
            update {
                $0.lastError = failure
                $0.isUpToDate = false
                $0.isSyncing = false
                if let pending { $0.pendingChangeCount = pending }
            }
            throw failure
        }
    }

    /// The pushed values that lost to others', most recent last (at most 1,000).
    var conflicts: [SyncConflict] { keptConflicts.elements }

    /// The pushed changes the server's rules refused, most recent last (at most 1,000).
    var refusals: [SyncRefusal] { keptRefusals.elements }

    /// Updates the status's count of local changes not acknowledged yet.
    func refreshPendingChangeCount() throws {
        let pending = try storeFailure { try pendingChangeCount() }
        update {
            $0.pendingChangeCount = pending
            if pending > 0 { $0.isUpToDate = false }
        }
    }

    /// The local changes not acknowledged yet.
    func pendingChangeCount() throws -> Int {
        let store = try container.replicationStore(for: "SyncEngine")
        let state = try SyncState.load(from: store).state
        return try Outbox(store: store, author: configuration.author, entities: entities).pendingChangeCount(after: state.pushedThrough)
    }

    /// The error that reports a synchronization's refused changes, if any.
    private static func refusedError(_ refusals: [SyncRefusal]) -> SyncError? {
        guard !refusals.isEmpty else { return nil }
        let listed = refusals.prefix(10).map(\.description).joined(separator: "; ")
        let more = refusals.count > 10 ? " (and \(refusals.count - 10) more)" : ""
        return SyncError(.refused, "The server refused \(refusals.count == 1 ? "a change" : "\(refusals.count) changes"), now undone on this device: \(listed)\(more)")
    }

    // MARK: Steps

    private func greet(_ store: ReplicationStore) async throws {
        guard !greeted else { return }
        var (state, isNew) = try storeFailure { try SyncState.load(from: store) }
        pushLimits = try await transport.hello(HelloRequest(client: state.client, schema: schema)).pushLimits
        // Models changed since the last synchronization (an app update): what the old models
        // skipped (new models, new properties) is downloaded again, from the start.
        let digest = schema.digest
        let recorded = try storeFailure { try SyncState.schemaDigest(in: store) }
        if !isNew, recorded != digest {
            state.cursor = 0
            state.redownloading = true
        }
        if isNew || recorded != digest {
            try storeFailure { try store.records.writeCompanionRecords(state.records + [SyncState.schemaRecord(digest)]) }
        }
        greeted = true
    }

    /// Pushes batches until nothing is pending; returns whether any change was sent.
    private func pushAll(_ store: ReplicationStore, outbox: Outbox) async throws -> Bool {
        var sent = false
        while true {
            var state = try storeFailure { try SyncState.load(from: store).state }
            let context = ModelContext(container)
            guard let batch = try storeFailure({ try outbox.nextBatch(after: state, limit: configuration.pushBatchSize, context: context) }) else { return sent }
            // Identifiers are bound before they are sent: a retry after any failure sends the same.
            try storeFailure { try store.records.writeCompanionRecords(batch.bindings) }
            var corrections: [SyncRow] = []
            // What the server decided against the batch, kept with its acknowledgment.
            var (nextConflicts, nextRefusals) = (keptConflicts, keptRefusals)
            var resolutionRecords: [CompanionRecord] = []
            if !batch.changes.isEmpty {
                sent = true
                let response = try await send(batch, state: state)
                corrections = response.corrections
                refusedNow += response.refusals
                // A batch sent again (its answer lost, or its apply failed) is refused again: each
                // refusal is listed once, where it came last.
                resolutionRecords = try storeFailure {
                    try nextConflicts.append(response.conflicts, batch: batch.sequence, replacingEqual: false)
                        + nextRefusals.append(response.refusals, batch: batch.sequence, replacingEqual: true)
                }
            }
            state.pushedThrough = batch.sequence
            if batch.clock > state.clock { state.clock = batch.clock }
            // The pushed values are the server's now: the next changes of their properties are
            // made over them.
            let acknowledged = KnownClocks.acknowledging(batch.changes, known: batch.knownClocks, entities: entities)
            if corrections.isEmpty {
                try storeFailure {
                    try store.records.writeCompanionRecords(
                        state.records + acknowledged.map { KnownClocks.record(of: $0.key, $0.value, entities: entities) } + resolutionRecords)
                }
            } else {
                _ = try apply(corrections, state: state, store: store, outbox: outbox, acknowledged: acknowledged, records: resolutionRecords)
            }
            (keptConflicts, keptRefusals) = (nextConflicts, nextRefusals)
            // What the batch covered is no longer pending (the whole count is taken after the pull).
            update { $0.pendingChangeCount = max(0, $0.pendingChangeCount - batch.historyChangeCount) }
        }
    }

    /// Sends a batch, in parts when it is larger than one request may carry (``PushParts``): the
    /// server applies it whole when its last part arrives, and answers that part for the whole
    /// batch.
    private func send(_ batch: PushBatch, state: SyncState) async throws -> PushResponse {
        let parts = try PushParts.split(batch.changes, limits: pushLimits)
        guard parts.count > 1 else {
            return try await transport.push(PushRequest(client: state.client, sequence: batch.sequence, changes: batch.changes, cursor: state.cursor))
        }
        for (number, part) in parts.enumerated() where number < parts.count - 1 {
            _ = try await transport.push(PushRequest(
                client: state.client, sequence: batch.sequence, changes: part, cursor: state.cursor, part: number, parts: parts.count))
        }
        return try await transport.push(PushRequest(
            client: state.client, sequence: batch.sequence, changes: parts[parts.count - 1], cursor: state.cursor,
            part: parts.count - 1, parts: parts.count))
    }

    /// Pulls pages until up to date, each applied in a transaction of its own with the cursor
    /// after it, so that a download of any size holds one page in memory and a stop keeps what was
    /// applied. A snapshot's pages keep the store's cursor at the start until its last, which
    /// deletes the models none of its pages held: a snapshot stopped partway starts again.
    private func pullAll(_ store: ReplicationStore, outbox: Outbox, startingWith prefetched: PrefetchedPage?) async throws {
        var state = try storeFailure { try SyncState.load(from: store).state }
        var cursor = state.cursor
        // A download from the start (after the models changed, or when the server trimmed
        // deletions this store has not seen) takes this client's own rows too, and is the whole
        // of the user's rows: a row of the store it does not hold was deleted. So is the first
        // pull of a store that has pushed (killed between its first push and its first pull):
        // the server asks only a pull after a cursor to start over, and deletions of the models
        // it pushed may have been trimmed since.
        var isSnapshot = state.cursor == 0 && (state.redownloading || state.pushedThrough > 0)
        // The identifiers of a snapshot's pages so far, and the user's trim point its first page
        // read: a snapshot during which the server trims deletions starts over, since a model
        // an earlier page brought may have been deleted and its deletion trimmed before a later
        // page would have brought it.
        var held: Set<String> = []
        var trimmedAtStart: Int64?
        // A page read for this client after this very cursor holds what a first pull would.
        var first = prefetched.flatMap { !isSnapshot && $0.cursor == cursor ? $0.page : nil }
        while true {
            let page: PullResponse
            if let prefetchedPage = first {
                first = nil
                page = prefetchedPage
            } else {
                page = try await transport.changes(client: isSnapshot ? "" : state.client, after: cursor, limit: configuration.pullPageSize)
            }
            if page.reset == true {
                guard cursor > 0 else {
                    throw SyncError(.serverFailure, "The server asked for a download from the start in answer to one")
                }
                (cursor, isSnapshot, held, trimmedAtStart) = (0, true, [], nil)
                state.redownloading = true
                continue
            }
            if isSnapshot, let trimmed = page.trimmedThrough {
                if let start = trimmedAtStart, trimmed > start {
                    (cursor, held, trimmedAtStart) = (0, [], nil)
                    continue
                }
                trimmedAtStart = trimmedAtStart ?? trimmed
            }
            let next = max(cursor, page.cursor)
            // A page may hold no row for this client (all of them its own changes) and still be
            // followed by more: only the server's word, or a page that moves nothing, ends the pull.
            let isLast = page.upToDate || (page.rows.isEmpty && next == cursor)
            if isSnapshot { held.formUnion(page.rows.map(\.id)) }
            if !page.rows.isEmpty || next != state.cursor || state.redownloading || isSnapshot {
                var applied = state
                applied.cursor = isSnapshot && !isLast ? 0 : next
                applied.redownloading = isSnapshot && !isLast
                // The apply moved the clock past the page's: the next page starts from the state it saved.
                state = try apply(page.rows, state: applied, store: store, outbox: outbox, endsPull: isLast, snapshot: isSnapshot && isLast ? held : nil)
            }
            cursor = next
            if isLast { return }
        }
    }

    /// Applies rows from the server in one transaction with `state` (see ``RemoteApplier``), and
    /// returns the state saved.
    /// `acknowledged` are the known clocks (``KnownClocks``) a push the server acknowledged leaves,
    /// which the rows' clocks then replace.
    private func apply(
        _ rows: [SyncRow], state: SyncState, store: ReplicationStore, outbox: Outbox, endsPull: Bool = false, snapshot: Set<String>? = nil,
        acknowledged: [String: KnownClocks.Update] = [:], records: [CompanionRecord] = []
    ) throws -> SyncState {
        try storeFailure {
            // A local save between reading the pending rows and the apply's save starts the apply
            // again; an app saving without pause gets ten tries.
            var attempt = 1
            while true {
                let context = ModelContext(container)
                context.author = configuration.author
                // The server's deletions hold every model a delete rule reached where they were
                // made; a model related to one here alone, by a change the server has not seen, stays.
                context.appliesDeleteRules = false
                let pending = try outbox.pendingRows(after: state.pushedThrough)
                do {
                    return try RemoteApplier(store: store, entities: entities, context: context)
                        .apply(
                            rows, pending: pending, outbox: outbox, state: state, endsPull: endsPull, snapshot: snapshot, acknowledged: acknowledged,
                            records: records)
                } catch is LocalSaveDuringApply where attempt < 10 {
                    attempt += 1
                }
            }
        }
    }

    // MARK: Continuous

    /// Synchronizes after each local save and each change the server announces, until cancelled.
    func runContinuously(configuration: SyncConfiguration) async {
        let listener = Task { await self.listenToServer() }
        await synchronizeAfterLocalSaves(configuration: configuration)
        // The engine has stopped when neither loop runs: a synchronization the server's
        // announcement started ends before `stop()` returns (its requests return at once).
        listener.cancel()
        await listener.value
    }

    /// Synchronizes after each local save until cancelled.
    private func synchronizeAfterLocalSaves(configuration: SyncConfiguration) async {
        let saves = LocalSaveSignal(container: container)
        var seen: Int64 = -1
        var synchronizedOnce = false
        var delay = 0.25
        while !Task.isCancelled {
            // A store that cannot be read runs a synchronization, which reports the failure in the status.
            let latest = (try? container.replicationStore(for: "SyncEngine").history.latestHistoryTransaction()) ?? Int64.min
            if latest != seen {
                // The engine's own saves (pulled changes applied) leave nothing to push, and the
                // wait on the server brings what others change.
                if synchronizedOnce, hasNothingToPush() {
                    seen = latest
                    await saves.wait(seconds: configuration.localChangeInterval)
                    continue
                }
                do {
                    try await synchronize()
                    seen = latest
                    synchronizedOnce = true
                    delay = 0.25
                } catch let refused as SyncError where refused.kind == .refused {
                    // A synchronization that ran to its end; the status shows the refusal until the next.
                    seen = latest
                    synchronizedOnce = true
                    delay = 0.25
                } catch {
                    try? await Task.sleep(for: .seconds(delay))
                    delay = min(delay * 2, configuration.maximumRetryDelay)
                    continue
                }
            }
            await saves.wait(seconds: configuration.localChangeInterval)
        }
    }

    /// Waits on the server for changes after the store's cursor, and synchronizes when one comes.
    private func listenToServer() async {
        var delay = 0.25
        while !Task.isCancelled {
            do {
                let store = try container.replicationStore(for: "SyncEngine")
                let state = try SyncState.load(from: store).state
                let page = try await transport.changes(client: state.client, after: state.cursor, limit: configuration.pullPageSize, wait: 20)
                // A reset (deletions after the cursor trimmed) comes at once: the synchronization
                // downloads everything again, after which the wait resumes from the new cursor.
                // The changes that ended the wait are applied as they came, without asking again.
                if page.reset == true {
                    try await synchronize()
                } else if !page.rows.isEmpty {
                    try await synchronize(startingWith: PrefetchedPage(cursor: state.cursor, page: page))
                }
                delay = 0.25
            } catch {
                if Task.isCancelled { return }
                try? await Task.sleep(for: .seconds(delay))
                delay = min(delay * 2, configuration.maximumRetryDelay)
            }
        }
    }

    // MARK: Support

    /// Whether the store holds no local change the server has not acknowledged; `false` when the
    /// store cannot be read, so that a synchronization runs and reports why.
    private func hasNothingToPush() -> Bool {
        do {
            return try pendingChangeCount() == 0
        } catch {
            return false
        }
    }

    private func acquire() async {
        guard running else {
            running = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { running = false } else { waiting.removeFirst().resume() }
    }

    private func update(_ body: (inout SyncStatus.Values) -> Void) {
        if status.update(body) { onStatusChange() }
    }

    /// Runs store work, reporting its failure as a ``SyncError``.
    private func storeFailure<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storeFailure, "\(error)")
        }
    }
}

/// A page of changes the server sent in answer to a pull after `cursor`.
struct PrefetchedPage: Sendable {
    let cursor: Int64
    let page: PullResponse
}
