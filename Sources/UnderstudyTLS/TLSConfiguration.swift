/// How a `TLSContext` negotiates: the role and its credentials, the versions, ALPN and limits.
/// Suites are not configurable: TLS 1.3's AEAD suites, and for TLS 1.2 only ECDHE with AES-GCM or
/// ChaCha20-Poly1305.
public struct TLSConfiguration: Sendable {
    enum Role: Sendable {
        case server(ServerCredentials)
        case client(trustRoots: [TLSCertificate], verifyHostname: Bool)
    }

    enum ServerCredentials: Sendable {
        case fixed(TLSIdentity)
        case selected(@Sendable (String?) -> TLSIdentity?)
    }

    let role: Role

    /// Lowest version accepted (TLS 1.2 by default).
    public var minimumVersion: TLSVersion = .tls12
    /// Highest version offered or accepted (TLS 1.3 by default).
    public var maximumVersion: TLSVersion = .tls13
    /// ALPN protocol names. A server selects the first of these the client offers (none if it
    /// offers none of them, or no ALPN at all); a client offers them. Empty: no ALPN.
    public var applicationProtocols: [String] = ["http/1.1"]
    /// Most bytes a handshake may take from the peer before it must be complete; past this it
    /// fails with `handshakeTooLarge`. Bytes that arrive with the last handshake message (early
    /// application data) do not count.
    public var handshakeByteLimit: Int = 64 * 1024

    private init(role: Role) {
        self.role = role
    }

    /// A server presenting `identity` whatever name the client asks for.
    public static func server(identity: TLSIdentity) -> TLSConfiguration {
        TLSConfiguration(role: .server(.fixed(identity)))
    }

    /// A server that picks its identity from the server name the client sent (SNI; nil if it sent
    /// none, as clients do when they connect to an IP address). Returning nil fails the handshake
    /// with `noCertificateForServerName`. Called during the handshake, on the caller's thread.
    public static func server(selectingIdentity: @escaping @Sendable (_ serverName: String?) -> TLSIdentity?) -> TLSConfiguration {
        TLSConfiguration(role: .server(.selected(selectingIdentity)))
    }

    /// A client that trusts only `trustRoots` and, unless told otherwise, checks that the server's
    /// certificate names the server name each connection is opened with.
    public static func client(trustRoots: [TLSCertificate], verifyHostname: Bool = true) -> TLSConfiguration {
        TLSConfiguration(role: .client(trustRoots: trustRoots, verifyHostname: verifyHostname))
    }

    var isServer: Bool {
        if case .server = role { return true }
        return false
    }
}
