import UnderstudyHTTP
import UnderstudyIO

/// Everything the HTTP server needs to know before `start()`.
public struct HTTPServerConfiguration: Sendable {
    /// A host (IPv4/IPv6 literal, "localhost", "0.0.0.0", "::") and a port (0 = any free port).
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public init(host: String, port: Int) { self.host = host; self.port = port }
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// One listening socket per address (and per event loop).
    public var addresses: [Address]
    /// Header/body size bounds (431 / 413).
    public var limits: HTTPLimits
    /// A request must be read completely (head and body) within this time, counted from its first
    /// byte, or from the connection's start for its first request: otherwise 408 and close.
    public var headerReadTimeout: Duration
    /// A kept-alive connection with no request in progress is closed after this time.
    public var idleTimeout: Duration
    /// Open connections per listening address, across all loops; beyond it the server answers a
    /// 503 JSON problem and closes.
    public var maxConnections: Int
    /// Event loop threads when the server creates its own group.
    public var threads: Int
    /// Where `HTTPReply.blocking` work runs. Nil runs it where it is asked for (on the loop): only
    /// for tests and tools that have nothing slow to run.
    public var workers: WorkerPool? = nil
    /// Put under every connection's HTTP handler (TLS, for an HTTPS listener). Nil: plain HTTP.
    public var connectionLayer: ConnectionLayer? = nil
    /// Decides each CONNECT request. Nil: CONNECT is answered 501 (not a proxy).
    public var connect: (@Sendable (HTTPRequest) -> HTTPConnectDecision)? = nil
    /// Told of every request once its reply is queued (a stream: once it ended), and of the replies
    /// the server makes itself (parse errors, timeouts, CONNECT), on the loop or a worker thread:
    /// it must be quick and thread-safe. Nil: no request log, and no cost.
    public var requestLog: (@Sendable (HTTPExchange) -> Void)? = nil
    /// Told of failed accepts and connections turned away at the limit (rate-limited).
    public var diagnostics: (@Sendable (String) -> Void)? = nil
    /// How long `shutdown()` lets in-flight requests finish before closing what remains.
    public var shutdownTimeout: Duration
    /// Responses a connection may have queued (pipelined requests not answered yet) before the
    /// server stops reading from it until they are sent.
    public var maxPipelinedRequests: Int
    /// Bytes a connection may have unsent before the server stops reading from it (pipelining), or,
    /// for a streamed body, before the stream is cut off as a too-slow reader.
    public var maxPendingWriteBytes: Int
    /// A client that takes no bytes of a pending reply for this long is disconnected, and what was
    /// queued for it is dropped.
    public var writeTimeout: Duration
    /// A pulled stream (`HTTPBodyWriter.stream(from:)`) is asked for its next chunk only while the
    /// connection has at most this many bytes unsent: its memory is this plus one chunk.
    public var streamLowWaterBytes: Int
    /// Fields written on every response of the server (routes, errors, 408, 503) unless the
    /// response sets a field of the same name. By default: no MIME sniffing, and no framing by
    /// other origins.
    public var defaultResponseHeaders: HTTPHeaders

    public static let securityHeaders: HTTPHeaders = [
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "frame-ancestors 'none'",
    ]

    public init(addresses: [Address] = [Address(host: "127.0.0.1", port: 0)],
                limits: HTTPLimits = HTTPLimits(),
                headerReadTimeout: Duration = .seconds(10),
                idleTimeout: Duration = .seconds(60),
                maxConnections: Int = 10_000,
                threads: Int = EventLoopGroup.coreCount,
                shutdownTimeout: Duration = .seconds(10),
                maxPipelinedRequests: Int = 64,
                maxPendingWriteBytes: Int = 8 * 1024 * 1024,
                defaultResponseHeaders: HTTPHeaders = HTTPServerConfiguration.securityHeaders,
                writeTimeout: Duration = .seconds(30),
                streamLowWaterBytes: Int = 128 * 1024) {
        self.addresses = addresses
        self.limits = limits
        self.headerReadTimeout = headerReadTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.threads = threads
        self.shutdownTimeout = shutdownTimeout
        self.maxPipelinedRequests = maxPipelinedRequests
        self.maxPendingWriteBytes = maxPendingWriteBytes
        self.defaultResponseHeaders = defaultResponseHeaders
        self.writeTimeout = writeTimeout
        self.streamLowWaterBytes = streamLowWaterBytes
    }
}
