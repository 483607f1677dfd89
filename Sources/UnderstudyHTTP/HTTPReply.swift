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
