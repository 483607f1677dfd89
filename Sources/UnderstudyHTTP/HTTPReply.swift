/// What a handler returns. The server serializes replies in request order (pipelining).
public enum HTTPReply: Sendable {
    case response(HTTPResponse)
    /// Answer later, from any thread (long-polling waits). The server keeps the connection open.
    case deferred(@Sendable (any HTTPResponsePromise) -> Void)
    /// Status + headers now, then a body streamed with chunked encoding (server-sent events).
    /// The response's body is ignored.
    case stream(HTTPResponse, @Sendable (any HTTPBodyWriter) -> Void)
    /// Work that blocks or burns CPU (SQLite reads and searches, RSA signing): the server runs it on
    /// its worker pool, never on a loop thread, and answers with the reply it returns. A stream
    /// cannot be started from it.
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
    /// pool, so this may be called on a loop thread).
    func complete(with reply: HTTPReply)
}

extension HTTPResponsePromise {
    /// Runs blocking work on the calling thread: for promises that have no worker pool.
    public func complete(with reply: HTTPReply) {
        switch reply {
        case .response(let response): succeed(response)
        case .deferred(let start): start(self)
        case .blocking(let work): complete(with: work())
        case .stream: succeed(.streamFromDeferredWork)
        }
    }
}

extension HTTPResponse {
    /// What a deferred or blocking reply that tried to start a stream gets: a programming error.
    public static let streamFromDeferredWork = HTTPResponse.problem(
        .internalServerError, error: "internal_error",
        message: "the server tried to stream a reply from deferred work; please report this")
}

/// The body of a `.stream` reply; implemented by the server. Each write becomes one chunk.
public protocol HTTPBodyWriter: Sendable {
    /// False once the client is gone.
    @discardableResult func write(_ bytes: [UInt8]) -> Bool
    func finish()
    func onClose(_ callback: @escaping @Sendable () -> Void)
}

/// Anything that answers requests: a `FrozenRouter`, or a test double.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPReply
}
