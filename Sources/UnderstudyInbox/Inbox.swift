import Dispatch
import Synchronization
import UnderstudyJSON
import UnderstudyStore

/// A message just indexed, as waiters and event subscribers see it.
public struct DeliveredMessage: Sendable {
    public var id: String
    public var message: NewMessage
    /// Lowercase addresses from the envelope, To and Cc.
    public var addresses: Set<String>
    public var links: [JSONValue]
}

/// What happened in the inbox, for server-sent events.
public enum InboxEvent: Sendable {
    case created(DeliveredMessage)
    case deleted(id: String)
    case cleared
}

/// The mail sink's core: digests messages, stores them, indexes them through one writer with
/// group commit, and tells waiters and subscribers the moment a message is indexed.
///
/// Threads: `accept` digests on the caller's thread (each SMTP loop in parallel), appends the raw
/// message to the store's log and queues it, under one lock so the queue keeps log order. The
/// message is stored once appended, so the caller is told at once (the SMTP 250) while the
/// backlog is small; past `ackBacklog` messages the answer waits for the index, which is how a
/// sender that outruns the writer gets slowed down. A serial queue drains everything pending
/// into one transaction, then notifies waiters. Reads that must see every message already
/// answered for go through `afterPendingCommits` (the HTTP API does). Waiting costs no CPU: a
/// waiter is an entry in a table plus a timer.
///
/// A 250 means every later read sees the message, so when the index cannot be written (a full
/// disk) the inbox stops answering 250: new mail is refused (`indexFailure`), and reads that
/// would miss a message already accepted fail at once with the reason instead of answering
/// without it. The writer retries; once a transaction commits, everything in the log is indexed
/// and mail is accepted again.
public final class Inbox: Sendable {
    public let store: MessageStore
    public let clock: @Sendable () -> Int64
    private let writer = DispatchQueue(label: "understudy.inbox.writer")
    private let timers = DispatchQueue(label: "understudy.inbox.timers")
    private let pending = Mutex<PendingWrites>(PendingWrites())
    private let registry = Mutex<Registry>(Registry())

    /// Messages committed per transaction, at most.
    static let maximumBatch = 256

    /// Appended messages not yet indexed beyond which the caller's answer waits for the index.
    public static let defaultAckBacklog = 1024
    let ackBacklog: Int
    /// The same bound in raw bytes.
    public static let defaultAckBacklogBytes = 64 << 20
    let ackBacklogBytes: Int

    struct PendingItem {
        var message: NewMessage
        var logged: MessageStore.LoggedMessage
        var links: [JSONValue]
        /// Set when the caller waits for the index rather than the append.
        var completion: (@Sendable (Result<String, InboxError>) -> Void)?
    }

    struct PendingWrites {
        var items: [PendingItem] = []
        var pendingBytes = 0
        var drainScheduled = false
        var indexingScheduled = false
        /// Messages appended and indexed so far, for `afterPendingCommits`.
        var appended: UInt64 = 0
        var indexed: UInt64 = 0
        var barriers: [(through: UInt64, body: @Sendable (InboxError?) -> Void)] = []
        /// Set while index transactions fail, cleared by the next that commits.
        var failure: InboxError?
        /// Delay before the next attempt after a failed index transaction.
        var retryDelay = 0
        /// When the last index transaction began (DispatchTime uptime), 0 before the first.
        var lastCommitStart: UInt64 = 0
        /// Index transactions committed so far.
        var commits = 0
    }

    /// Under steady mail, index transactions begin at least this far apart, so each carries more
    /// messages: a transaction writes every page it touches, whatever it carries. The first
    /// message after a pause is indexed at once; the 250 never waits for this.
    static let commitSpacingNanoseconds: UInt64 = 2_000_000

    /// Messages indexed for search per transaction, between commits of new mail.
    static let indexingChunk = 256
    /// How long the writer waits after the last commit before indexing what is pending.
    static let indexingDelay: DispatchTimeInterval = .milliseconds(20)

    struct Waiter {
        var address: String
        var match: @Sendable (DeliveredMessage) -> JSONValue?
        var callback: @Sendable (JSONValue?) -> Void
    }

    struct Registry {
        var nextID: UInt64 = 1
        var waiters: [UInt64: Waiter] = [:]
        var subscribers: [UInt64: @Sendable (InboxEvent) -> Void] = [:]
    }

    /// Told when indexing starts failing (with the cause) and when it recovers.
    public let report: @Sendable (String) -> Void

    /// `clock` gives milliseconds since the epoch; `report` gets a line when the index cannot be
    /// written and when it can again (the app writes it to stderr).
    public init(store: MessageStore, clock: @escaping @Sendable () -> Int64, ackBacklog: Int = Inbox.defaultAckBacklog,
                ackBacklogBytes: Int = Inbox.defaultAckBacklogBytes, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.clock = clock
        self.report = report
        self.ackBacklog = max(0, ackBacklog)
        self.ackBacklogBytes = max(0, ackBacklogBytes)
    }

    // MARK: Ingest

    /// Digests and stores a message; `completion` runs with the message id once it is stored:
    /// on the caller's thread right away while the backlog is small, else on the writer's thread
    /// once it is indexed. With `waitForIndex`, always the latter.
    /// `source` names the HTTP API a message came through (nil for SMTP).
    public func accept(raw: [UInt8], envelopeFrom: String, envelopeTo: [String], waitForIndex: Bool = false,
                       source: String? = nil, completion: @escaping @Sendable (Result<String, InboxError>) -> Void) {
        let (message, links) = IncomingMessage.digestWithLinks(raw: raw, envelopeFrom: envelopeFrom, envelopeTo: envelopeTo,
                                                               receivedAt: clock(), source: source)
        let outcome = pending.withLock { state -> Result<(id: String, answerNow: Bool, scheduleDrain: Bool), InboxError> in
            // A message appended now could not be indexed, so a 250 would be a promise not kept.
            if let failure = state.failure { return .failure(failure) }
            let logged: MessageStore.LoggedMessage
            do { logged = try store.append(message) } catch {
                return .failure(InboxError.storage(path: store.path, error) ?? .storeFailed(error))
            }
            let answerNow = !waitForIndex && state.appended - state.indexed < UInt64(ackBacklog)
                && state.pendingBytes + message.raw.count <= ackBacklogBytes
            state.items.append(PendingItem(message: message, logged: logged, links: links,
                                           completion: answerNow ? nil : completion))
            state.pendingBytes += message.raw.count
            state.appended += 1
            let scheduleDrain = !state.drainScheduled
            state.drainScheduled = true
            return .success((logged.id, answerNow, scheduleDrain))
        }
        switch outcome {
        case .failure(let error):
            completion(.failure(error))
        case .success(let (id, answerNow, scheduleDrain)):
            if scheduleDrain { writer.async { self.drain() } }
            if answerNow { completion(.success(id)) }
        }
    }

    /// `accept`, waiting for the index: for embedding the inbox without an SMTP server (and tests).
    public func acceptAndWait(raw: [UInt8], envelopeFrom: String, envelopeTo: [String],
                              source: String? = nil) throws(InboxError) -> String {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<String, InboxError>?>(nil)
        accept(raw: raw, envelopeFrom: envelopeFrom, envelopeTo: envelopeTo, waitForIndex: true, source: source) { r in
            result.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Runs `body` with nil once every message appended before this call is indexed, so what it
    /// reads includes every message already answered for; returns false (and does not run it)
    /// when nothing is pending, so the caller runs it in place. `body` then runs on a global queue.
    /// It runs with the reason instead, at once, when the index cannot be written (a full disk:
    /// the messages may not be indexed for a long time), and after `timeout` if it is still
    /// waiting then: a read must neither hang nor answer without a message already accepted.
    public func afterPendingCommits(timeout: Duration? = nil, _ body: @escaping @Sendable (InboxError?) -> Void) -> Bool {
        let once = Once()
        let run: @Sendable (InboxError?) -> Void = { error in if once.claim() { body(error) } }
        let (waiting, failure) = pending.withLock { state -> (Bool, InboxError?) in
            guard state.indexed < state.appended else { return (false, nil) }
            if let failure = state.failure { return (true, failure) }
            state.barriers.append((state.appended, run))
            return (true, nil)
        }
        if let failure {
            DispatchQueue.global().async { run(failure) }
        } else if waiting, let timeout {
            timers.asyncAfter(deadline: .now() + Self.dispatchInterval(timeout)) {
                DispatchQueue.global().async { run(.indexTimedOut(timeout)) }
            }
        }
        return waiting
    }

    /// Why the index cannot be written now, while it cannot: new mail is refused with it.
    public var indexFailure: InboxError? { pending.withLock { $0.failure } }

    /// `error`, when it says the store cannot be written (a failed delete on a full disk), as
    /// the API reports it; nil for other errors.
    public func storageFailure(_ error: any Error) -> InboxError? {
        if let error = error as? InboxError { return error.isStorageUnavailable ? error : nil }
        return InboxError.storage(path: store.path, error)
    }

    /// The first `claim()` wins.
    private final class Once: Sendable {
        private let claimed = Atomic<Bool>(false)
        func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }
    }

    /// Indexes what is pending (waiting at most `timeout`), then closes the store. Whatever is
    /// still pending after that stays in the log of a file store and is indexed when it opens again.
    public func close(timeout: Duration = .seconds(5)) {
        let done = DispatchSemaphore(value: 0)
        if afterPendingCommits({ _ in done.signal() }) {
            _ = done.wait(timeout: .now() + Self.dispatchInterval(timeout))
        }
        store.close()
    }

    /// Index transactions committed so far (each carries every message queued when it began).
    public var indexTransactions: Int { pending.withLock { $0.commits } }

    /// True while some appended message is not indexed yet.
    public var hasPendingCommits: Bool { pending.withLock { $0.indexed < $0.appended } }

    /// Runs on the writer queue: indexes everything pending, in batches, then notifies. A failed
    /// transaction (a full disk, say) is retried with a growing delay; the messages are in the
    /// log, and the answers of callers waiting for the index wait with them.
    private func drain() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let wait = pending.withLock { state -> UInt64? in
                guard !state.items.isEmpty, state.items.count < Self.maximumBatch, state.lastCommitStart > 0,
                      now &- state.lastCommitStart < Self.commitSpacingNanoseconds else { return nil }
                return Self.commitSpacingNanoseconds - (now &- state.lastCommitStart)
            }
            if let wait {
                writer.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { self.drain() }
                return
            }
            let batch = pending.withLock { state -> [PendingItem] in
                let n = min(state.items.count, Self.maximumBatch)
                if n > 0 { state.lastCommitStart = now }
                let taken = Array(state.items.prefix(n))
                state.items.removeFirst(n)
                if taken.isEmpty { state.drainScheduled = false }
                return taken
            }
            if batch.isEmpty {
                scheduleIndexing(after: Self.indexingDelay)
                return
            }
            do {
                try store.index(batch.map { ($0.message, $0.logged) })
            } catch let error as DatabaseError where error.isClosed {
                // Shut down: what is left is in the log, and is indexed when the store opens again.
                pending.withLock { $0.drainScheduled = false }
                return
            } catch {
                // Readers waiting for these messages are told now rather than after their
                // timeout, and new mail is refused until a retry commits.
                let failure = InboxError.indexFailing(path: store.path, error)
                let (delay, failed, first) = pending.withLock { state -> (Int, [@Sendable (InboxError?) -> Void], Bool) in
                    state.items.insert(contentsOf: batch, at: 0)
                    state.retryDelay = min(max(10, state.retryDelay * 2), 2000)
                    let first = state.failure == nil
                    state.failure = failure
                    let failed = state.barriers.map(\.body)
                    state.barriers.removeAll()
                    return (state.retryDelay, failed, first)
                }
                if first { report("understudy: cannot index new mail, refusing mail until it can (\(error)): \(failure)") }
                for body in failed { DispatchQueue.global().async { body(failure) } }
                writer.asyncAfter(deadline: .now() + .milliseconds(delay)) { self.drain() }
                return
            }
            let (barriers, recovered) = pending.withLock { state -> ([@Sendable (InboxError?) -> Void], Bool) in
                let recovered = state.failure != nil
                state.failure = nil
                state.retryDelay = 0
                state.commits += 1
                state.indexed += UInt64(batch.count)
                state.pendingBytes -= batch.reduce(0) { $0 + $1.message.raw.count }
                let indexed = state.indexed
                let ready = state.barriers.filter { $0.through <= indexed }.map(\.body)
                state.barriers.removeAll { $0.through <= indexed }
                return (ready, recovered)
            }
            if recovered { report("understudy: the store at \(store.path) can be written again; indexing and accepting mail") }
            var delivered: [DeliveredMessage] = []
            delivered.reserveCapacity(batch.count)
            for item in batch {
                delivered.append(DeliveredMessage(id: item.logged.id, message: item.message,
                                                  addresses: Set(item.message.recipientKeys), links: item.links))
            }
            for item in batch { item.completion?(.success(item.logged.id)) }
            for body in barriers { DispatchQueue.global().async { body(nil) } }
            for d in delivered { notify(.created(d)) }
        }
    }

    /// Search indexing runs on the writer queue in chunks, off the path of a commit: when mail
    /// pauses, or between batches once a backlog builds up, so searches stay cheap to catch up.
    private func scheduleIndexing(after delay: DispatchTimeInterval) {
        guard store.unindexedCount > 0 else { return }
        let schedule = pending.withLock { state -> Bool in
            if state.indexingScheduled { return false }
            state.indexingScheduled = true
            return true
        }
        guard schedule else { return }
        writer.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            self.pending.withLock { $0.indexingScheduled = false }
            _ = try? self.store.indexPendingSearch(limit: Self.indexingChunk)
            if self.store.unindexedCount > 0 { self.scheduleIndexing(after: .milliseconds(0)) }
        }
    }

    // MARK: Deleting

    public func delete(id: String) throws -> Bool {
        let deleted = try writer.sync { try store.delete(id: id) }
        if deleted { notify(.deleted(id: id)) }
        return deleted
    }

    /// Deletes these messages; returns the ids that were there.
    public func delete(ids: [String]) throws -> [String] {
        let deleted = try writer.sync { try store.delete(ids: ids) }
        for id in deleted { notify(.deleted(id: id)) }
        return deleted
    }

    /// Read state and tags change through the writer, like every other write.
    @discardableResult
    public func setRead(_ read: Bool, ids: [String]?) throws -> Int {
        try writer.sync { try store.setRead(read, ids: ids) }
    }

    @discardableResult
    public func setTags(_ tags: [String], ids: [String]) throws -> Int {
        try writer.sync { try store.setTags(tags, ids: ids) }
    }

    @discardableResult
    public func renameTag(_ tag: String, to name: String?) throws -> Int {
        try writer.sync { try store.renameTag(tag, to: name) }
    }

    public func deleteAll() throws -> Int {
        let n = try writer.sync { try store.deleteAll() }
        notify(.cleared)
        return n
    }

    // MARK: Waiting

    /// Waits for the first message to `address` for which `match` returns an answer. `existing`
    /// looks in the store for one that is already there; it runs after the waiter is registered,
    /// so a message committed in between is not missed. `callback` runs exactly once: with the
    /// answer, or nil when `timeout` passes. The returned function cancels the wait.
    @discardableResult
    public func wait(for address: String, timeout: Duration,
                     existing: @escaping @Sendable () -> JSONValue?,
                     match: @escaping @Sendable (DeliveredMessage) -> JSONValue?,
                     callback: @escaping @Sendable (JSONValue?) -> Void) -> @Sendable () -> Void {
        let key = MessageFilter.normalizeAddress(address)
        let id = registry.withLock { r -> UInt64 in
            let id = r.nextID
            r.nextID += 1
            r.waiters[id] = Waiter(address: key, match: match, callback: callback)
            return id
        }
        let cancel: @Sendable () -> Void = { [weak self] in _ = self?.finish(id) }
        if let found = existing() {
            if let waiter = finish(id) { waiter.callback(found) }
            return cancel
        }
        // The timeout finds nothing to do if the waiter was answered or cancelled first.
        timers.asyncAfter(deadline: .now() + Self.dispatchInterval(timeout)) { [weak self] in
            if let waiter = self?.finish(id) { waiter.callback(nil) }
        }
        return cancel
    }

    /// Removes a waiter; the caller that gets it back owns its callback.
    private func finish(_ id: UInt64) -> Waiter? {
        registry.withLock { $0.waiters.removeValue(forKey: id) }
    }

    public var waiterCount: Int { registry.withLock { $0.waiters.count } }

    static func dispatchInterval(_ d: Duration) -> DispatchTimeInterval {
        let (s, attos) = d.components
        return .nanoseconds(Int(min(Int64(Int32.max), s) * 1_000_000_000 + attos / 1_000_000_000))
    }

    // MARK: Events

    /// Calls `handler` for every event from now on, on the writer's thread; returns the unsubscribe function.
    public func subscribe(_ handler: @escaping @Sendable (InboxEvent) -> Void) -> @Sendable () -> Void {
        let id = registry.withLock { r -> UInt64 in
            let id = r.nextID
            r.nextID += 1
            r.subscribers[id] = handler
            return id
        }
        return { [weak self] in _ = self?.registry.withLock { $0.subscribers.removeValue(forKey: id) } }
    }

    private func notify(_ event: InboxEvent) {
        let (ready, subscribers) = registry.withLock { r -> ([(Waiter, JSONValue)], [@Sendable (InboxEvent) -> Void]) in
            var ready: [(Waiter, JSONValue)] = []
            if case .created(let message) = event, !r.waiters.isEmpty {
                for (id, waiter) in r.waiters where message.addresses.contains(waiter.address) {
                    if let answer = waiter.match(message) {
                        r.waiters.removeValue(forKey: id)
                        ready.append((waiter, answer))
                    }
                }
            }
            return (ready, Array(r.subscribers.values))
        }
        for (waiter, answer) in ready { waiter.callback(answer) }
        for s in subscribers { s(event) }
    }
}
