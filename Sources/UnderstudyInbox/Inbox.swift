import Dispatch
import Synchronization
import UnderstudyJSON
import UnderstudyStore

/// A message just committed, as waiters and event subscribers see it.
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

/// Why a message could not be stored; the SMTP layer answers 451 with this text.
public struct InboxError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The mail sink's core: digests messages, stores them through one writer with group commit, and
/// tells waiters and subscribers the moment a message is committed.
///
/// Threads: `accept` digests on the caller's thread (each SMTP loop in parallel) and enqueues;
/// a serial queue drains everything pending into one transaction, then completes the callers
/// (who answer 250 only now) and notifies waiters. Waiting costs no CPU: a waiter is an entry in a
/// table plus a timer.
public final class Inbox: Sendable {
    public let store: MessageStore
    let clock: @Sendable () -> Int64
    private let writer = DispatchQueue(label: "understudy.inbox.writer")
    private let timers = DispatchQueue(label: "understudy.inbox.timers")
    private let pending = Mutex<PendingWrites>(PendingWrites())
    private let registry = Mutex<Registry>(Registry())

    /// Messages committed per transaction, at most.
    static let maximumBatch = 256

    struct PendingItem {
        var message: NewMessage
        var links: [JSONValue]
        var completion: @Sendable (Result<String, InboxError>) -> Void
    }

    struct PendingWrites {
        var items: [PendingItem] = []
        var drainScheduled = false
        var indexingScheduled = false
    }

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

    /// `clock` gives milliseconds since the epoch.
    public init(store: MessageStore, clock: @escaping @Sendable () -> Int64) {
        self.store = store
        self.clock = clock
    }

    // MARK: Ingest

    /// Digests and stores a message; `completion` runs on the writer's thread once it is committed
    /// (or failed), with the message id.
    public func accept(raw: [UInt8], envelopeFrom: String, envelopeTo: [String],
                       completion: @escaping @Sendable (Result<String, InboxError>) -> Void) {
        let (message, links) = IncomingMessage.digestWithLinks(raw: raw, envelopeFrom: envelopeFrom, envelopeTo: envelopeTo,
                                                               receivedAt: clock())
        let scheduleDrain = pending.withLock { state -> Bool in
            state.items.append(PendingItem(message: message, links: links, completion: completion))
            if state.drainScheduled { return false }
            state.drainScheduled = true
            return true
        }
        if scheduleDrain { writer.async { self.drain() } }
    }

    /// `accept`, waiting for the commit: for embedding the inbox without an SMTP server (and tests).
    public func acceptAndWait(raw: [UInt8], envelopeFrom: String, envelopeTo: [String]) throws(InboxError) -> String {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<String, InboxError>?>(nil)
        accept(raw: raw, envelopeFrom: envelopeFrom, envelopeTo: envelopeTo) { r in
            result.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Runs on the writer queue: commits everything pending, in batches, then notifies.
    private func drain() {
        while true {
            let batch = pending.withLock { state -> [PendingItem] in
                let n = min(state.items.count, Self.maximumBatch)
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
                let ids = try store.insert(batch: batch.map(\.message))
                var delivered: [DeliveredMessage] = []
                delivered.reserveCapacity(ids.count)
                for (item, id) in zip(batch, ids) {
                    delivered.append(DeliveredMessage(id: id, message: item.message,
                                                      addresses: Set(item.message.recipientKeys), links: item.links))
                }
                // Reply 250 first, then wake waiters: both happen after the commit.
                for (item, id) in zip(batch, ids) { item.completion(.success(id)) }
                for d in delivered { notify(.created(d)) }
            } catch {
                let failure = InboxError("the message could not be stored: \(error); try again")
                for item in batch { item.completion(.failure(failure)) }
            }
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
