import Synchronization
import UnderstudyHTTP
import UnderstudyIO

/// The writer behind `HTTPReply.stream`: chunks written from any thread, sent on the loop in order.
///
/// `@unchecked Sendable`: `state` is a Mutex; `handler` and the fields marked loop-confined are
/// touched only on `loop`.
final class StreamedBody: HTTPBodyWriter, @unchecked Sendable {
    private struct State {
        var clientGone = false
        var finished = false
        var closeCallbacks: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let handler: HTTPConnectionHandler
    private let loop: EventLoop
    let head: [UInt8]
    /// HEAD request (or a status without body): the head only, chunks are dropped.
    let headOnly: Bool
    let closeAfter: Bool
    /// For the request log (nil when there is none); `sentBytes` counts what went out (loop-confined).
    let record: ExchangeRecord?
    let status: Int
    var sentBytes = 0

    // Loop-confined.
    var headWritten = false
    var pendingChunks: [[UInt8]] = []
    var finished = false
    /// Set by `stream(from:)`: the handler pulls chunks from it as the connection drains.
    var source: (@Sendable () throws -> [UInt8]?)?

    init(handler: HTTPConnectionHandler, loop: EventLoop, head: [UInt8], headOnly: Bool, closeAfter: Bool,
         status: Int = 200, record: ExchangeRecord? = nil) {
        self.status = status
        self.record = record
        self.handler = handler
        self.loop = loop
        self.head = head
        self.headOnly = headOnly
        self.closeAfter = closeAfter
    }

    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        let open = state.withLock { !$0.clientGone && !$0.finished }
        guard open else { return false }
        guard !bytes.isEmpty else { return true }
        let chunk = HTTPSerializer.chunk(bytes)   // framed on the caller's thread
        loop.execute {
            guard !self.finished else { return }
            self.pendingChunks.append(chunk)
            self.handler.streamChanged()
        }
        return true
    }

    func finish() {
        let first = state.withLock { state -> Bool in
            if state.finished || state.clientGone { return false }
            state.finished = true
            state.closeCallbacks = []
            return true
        }
        guard first else { return }
        loop.execute {
            self.finished = true
            self.handler.streamChanged()
        }
    }

    func stream(from next: @escaping @Sendable () throws -> [UInt8]?) {
        let open = state.withLock { !$0.clientGone && !$0.finished }
        guard open else { return }
        loop.execute {
            guard !self.finished, self.source == nil else { return }
            self.source = next
            self.handler.streamChanged()
        }
    }

    /// The source returned its end (on the loop).
    func sourceEnded() {
        source = nil
        finished = true
        state.withLock { state in
            state.finished = true
            state.closeCallbacks = []
        }
    }

    func onClose(_ callback: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.clientGone { return true }
            if !state.finished { state.closeCallbacks.append(callback) }
            return false
        }
        if runNow { callback() }
    }

    /// The connection closed before the stream finished (on the loop).
    func clientWentAway() {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            if state.clientGone || state.finished { return [] }
            state.clientGone = true
            defer { state.closeCallbacks = [] }
            return state.closeCallbacks
        }
        for callback in callbacks { callback() }
    }
}
