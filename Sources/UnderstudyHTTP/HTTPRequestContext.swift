/// What a route may need to know about how a request reached the server, beyond the request
/// itself: whether it came over TLS and for which server name, from which peer, and which host it
/// was routed as (a provider host like `appleid.apple.com`, whose routes live under a prefix).
public struct HTTPRequestContext: Sendable, Equatable {
    /// Came over TLS (an HTTPS listener, or a CONNECT tunnel Understudy terminated).
    public var isTLS = false
    /// The TLS server name (SNI) the client asked for, lowercased.
    public var serverName: String?
    /// The peer, `host:port`.
    public var peer: String?
    /// The provider host the request was routed as (lowercased, no port), when host routing
    /// mapped it onto a path prefix; nil for the path-routed localhost API.
    public var virtualHost: String?

    public init(isTLS: Bool = false, serverName: String? = nil, peer: String? = nil, virtualHost: String? = nil) {
        self.isTLS = isTLS
        self.serverName = serverName
        self.peer = peer
        self.virtualHost = virtualHost
    }

    /// `https` or `http`.
    public var scheme: String { isTLS ? "https" : "http" }
}
