/// What a handler returns. The server serializes replies in request order (pipelining).
public enum HTTPReply: Sendable {
    case response(HTTPResponse)
    /// Answer later, from any thread (long-polling waits). The server keeps the connection open.
    case deferred(@Sendable (any HTTPResponsePromise) -> Void)
    /// Status + headers now, then a body streamed with chunked encoding (server-sent events).
    /// The response's body is ignored.
    case stream(HTTPResponse, @Sendable (any HTTPBodyWriter) -> Void)
}

/// The answer to a `.deferred` reply; implemented by the server.
public protocol HTTPResponsePromise: Sendable {
    /// First call wins; later calls are ignored.
    func succeed(_ response: HTTPResponse)
    /// Runs if the client goes away before `succeed`.
    func onCancel(_ callback: @escaping @Sendable () -> Void)
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
