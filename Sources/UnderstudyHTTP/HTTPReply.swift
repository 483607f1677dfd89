/// What a handler returns. The server serializes replies in request order (pipelining).
public enum HTTPReply: Sendable {
    case response(HTTPResponse)
    /// Answer later, from any thread (long-polling waits). The server keeps the connection open.
    case deferred(@Sendable (any HTTPResponsePromise) -> Void)
    /// Status + headers now, then a body streamed with chunked encoding (server-sent events).
    /// The response's body is ignored.
    case stream(HTTPResponse, @Sendable (any HTTPBodyWriter) -> Void)
    /// Work that blocks or burns CPU (SQLite reads and searches, RSA signing): the server runs it on
    /// its worker pool, never on a loop thread, and answers with the reply it returns (a stream it
    /// returns is streamed from the loop, its pulled chunks made there).
    case blocking(@Sendable () -> HTTPReply)
}

/// The answer to a `.deferred` reply; implemented by the server.
public protocol HTTPResponsePromise: Sendable {
    /// First call wins; later calls are ignored.
    func succeed(_ response: HTTPResponse)
    /// Runs if the client goes away before `succeed`.
    func onCancel(_ callback: @escaping @Sendable () -> Void)
    /// Answers with whatever a handler returned: a response at once, a deferred reply when it
    /// completes, blocking work once it has run (the server's implementation runs it on its worker
    /// pool, so this may be called on a loop thread), a stream as a stream where the server can.
    func complete(with reply: HTTPReply)
}

extension HTTPResponsePromise {
    /// Runs blocking work on the calling thread: for promises that have no worker pool.
    public func complete(with reply: HTTPReply) {
        switch reply {
        case .response(let response): succeed(response)
        case .deferred(let start): start(self)
        case .blocking(let work): complete(with: work())
        case .stream(let head, let start): start(CollectedBody(head: head, promise: self))
        }
    }
}

/// The body of a `.stream` reply; implemented by the server. Each write becomes one chunk.
public protocol HTTPBodyWriter: Sendable {
    /// False once the client is gone.
    @discardableResult func write(_ bytes: [UInt8]) -> Bool
    func finish()
    func onClose(_ callback: @escaping @Sendable () -> Void)
    /// Pulls the rest of the body from `next` instead: the server calls it on its event loop each
    /// time the connection's unsent bytes are at or below its low-water mark, one chunk per call,
    /// until it returns nil or an empty array (the end; no `finish()` needed). A throw cuts the
    /// connection (the body is incomplete). Memory stays bounded however slowly the client reads.
    func stream(from next: @escaping @Sendable () throws -> [UInt8]?)
}

/// Anything that answers requests: a `FrozenRouter`, or a test double.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPReply
}

extension HTTPBodyWriter {
    /// For writers without flow control (test doubles): takes every chunk at once, then finishes.
    public func stream(from next: @escaping @Sendable () throws -> [UInt8]?) {
        while let chunk = try? next(), !chunk.isEmpty {
            guard write(chunk) else { return }
        }
        finish()
    }
}
