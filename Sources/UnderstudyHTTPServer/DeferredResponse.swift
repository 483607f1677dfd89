import Synchronization
import UnderstudyHTTP
import UnderstudyIO

/// The promise behind `HTTPReply.deferred`: completed from any thread, written on the loop.
///
/// `@unchecked Sendable`: `state` is a Mutex; `handler` and `bytes` are touched only on `loop`.
final class DeferredResponse: HTTPResponsePromise, @unchecked Sendable {
    private struct State {
        var completed = false
        var cancelled = false
        var cancelCallbacks: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let handler: HTTPConnectionHandler
    private let loop: EventLoop
    let method: HTTPMethod
    let version: HTTPVersion
    private let workers: WorkerPool?
    let keepAlive: Bool
    private let defaults: HTTPHeaders
    /// For the request log (nil when there is none).
    let record: ExchangeRecord?
    /// The serialized reply once it reached the loop (loop-confined).
    var bytes: [UInt8]?

    init(handler: HTTPConnectionHandler, loop: EventLoop, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool,
         workers: WorkerPool?, defaults: HTTPHeaders, record: ExchangeRecord?) {
        self.handler = handler
        self.loop = loop
        self.method = method
        self.version = version
        self.keepAlive = keepAlive
        self.workers = workers
        self.defaults = defaults
        self.record = record
    }

    /// Blocking work goes to the worker pool; a full pool answers 503 at once rather than queueing.
    func complete(with reply: HTTPReply) {
        switch reply {
        case .response(let response):
            succeed(response)
        case .deferred(let start):
            start(self)
        case .blocking(let work):
            guard let workers else { return complete(with: work()) }
            if !workers.submit({ self.complete(with: work()) }) {
                succeed(.problem(.serviceUnavailable, error: "server_busy",
                                 message: "\(workers.queueLimit) requests are already waiting for a worker thread; retry shortly"))
            }
        case .stream(let head, let start):
            guard version == .http1_1, method != .head else {
                return start(CollectedBody(head: head, promise: self))   // no chunked framing: one response
            }
            guard takeCompletion() else { return }
            loop.execute { self.handler.deferredBecameStream(self, head: head, start: start) }
        }
    }

    /// True for the first completion (a response or a stream), unless the client went away.
    private func takeCompletion() -> Bool {
        state.withLock { state -> Bool in
            if state.completed || state.cancelled { return false }
            state.completed = true
            state.cancelCallbacks = []
            return true
        }
    }

    func succeed(_ response: HTTPResponse) {
        guard takeCompletion() else { return }
        // Serialized on the caller's thread; only the write happens on the loop.
        let bytes = HTTPSerializer.serialize(response, requestMethod: method, requestVersion: version,
                                             keepAlive: keepAlive, defaults: defaults)
        record?.finish(status: response.status.code, bytes: bytes.count, now: HTTPConnectionHandler.now())
        loop.execute {
            self.bytes = bytes
            self.handler.deferredCompleted()
        }
    }

    func onCancel(_ callback: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            if !state.completed { state.cancelCallbacks.append(callback) }
            return false
        }
        if runNow { callback() }
    }

    /// The connection closed before the reply was written (on the loop).
    func clientWentAway() {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            if state.completed || state.cancelled { return [] }
            state.cancelled = true
            defer { state.cancelCallbacks = [] }
            return state.cancelCallbacks
        }
        for callback in callbacks { callback() }
    }
}
