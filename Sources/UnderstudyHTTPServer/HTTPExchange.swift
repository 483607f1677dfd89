import UnderstudyHTTP

/// One request and its reply, as the request log is told of it once the reply is queued for the
/// client (a stream: once it ended).
public struct HTTPExchange: Sendable {
    /// `GET`, ...; `-` for a request that could not be parsed.
    public var method: String
    /// The Host header (or the absolute-form authority, or the TLS server name), as sent.
    public var host: String?
    /// The request target as sent (path and query); `-` when unparsed.
    public var target: String
    public var status: Int
    /// Bytes of the reply: head and body, chunk framing included.
    public var bytes: Int
    /// From the request's complete arrival to its reply being queued.
    public var durationNanoseconds: UInt64
    /// The peer, `host:port`.
    public var peer: String?
    public var isTLS: Bool

    public init(method: String, host: String?, target: String, status: Int, bytes: Int, durationNanoseconds: UInt64,
                peer: String?, isTLS: Bool) {
        self.method = method; self.host = host; self.target = target; self.status = status; self.bytes = bytes
        self.durationNanoseconds = durationNanoseconds; self.peer = peer; self.isTLS = isTLS
    }
}

/// What the handler keeps of a request until its reply is written, when a request log is set.
struct ExchangeRecord: Sendable {
    let sink: @Sendable (HTTPExchange) -> Void
    let method: String
    let host: String?
    let target: String
    let peer: String?
    let isTLS: Bool
    let started: UInt64

    init(sink: @escaping @Sendable (HTTPExchange) -> Void, request: HTTPRequest, started: UInt64) {
        self.sink = sink
        method = request.method.rawValue
        host = request.headers["Host"] ?? request.context.serverName
        target = request.target
        peer = request.context.peer
        isTLS = request.context.isTLS
        self.started = started
    }

    /// A reply the server made itself for bytes that were not a request (parse error, timeout).
    init(sink: @escaping @Sendable (HTTPExchange) -> Void, unparsedFrom context: HTTPRequestContext, started: UInt64) {
        self.sink = sink
        method = "-"
        host = context.serverName
        target = "-"
        peer = context.peer
        isTLS = context.isTLS
        self.started = started
    }

    func finish(status: Int, bytes: Int, now: UInt64) {
        sink(HTTPExchange(method: method, host: host, target: target, status: status, bytes: bytes,
                          durationNanoseconds: now >= started ? now - started : 0, peer: peer, isTLS: isTLS))
    }
}
