import UnderstudyTLS

/// Why a TLS connection ended badly, for the log: the peer and what happened (with the alert).
public struct TLSTransportFailure: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case handshake(TLSError)
        case connection(TLSError)
        case handshakeTimedOut(Duration)
        case tooManyHandshakes(limit: Int)
    }

    let kind: Kind
    /// The peer's address, `host:port`.
    public internal(set) var peer: String?

    static func handshake(_ error: TLSError) -> Self { Self(kind: .handshake(error), peer: nil) }
    static func connection(_ error: TLSError) -> Self { Self(kind: .connection(error), peer: nil) }
    static func handshakeTimedOut(_ timeout: Duration) -> Self { Self(kind: .handshakeTimedOut(timeout), peer: nil) }
    static func tooManyHandshakes(limit: Int) -> Self { Self(kind: .tooManyHandshakes(limit: limit), peer: nil) }

    /// The TLS error, when there is one (not for a timeout or the limit).
    public var error: TLSError? {
        switch kind {
        case .handshake(let error), .connection(let error): error
        case .handshakeTimedOut, .tooManyHandshakes: nil
        }
    }

    public var isHandshakeFailure: Bool {
        if case .connection = kind { return false }
        return true
    }

    public var description: String {
        let who = peer.map { "TLS with \($0): " } ?? "TLS: "
        switch kind {
        case .handshake(let error): return who + "handshake failed: \(error)"
        case .connection(let error): return who + "connection failed: \(error)"
        case .handshakeTimedOut(let timeout): return who + "handshake not completed within \(timeout); closed"
        case .tooManyHandshakes(let limit): return who + "\(limit) handshakes already in progress; closed"
        }
    }
}
