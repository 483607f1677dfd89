/// Why a connection ended.
public struct ConnectionCloseReason: Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case local, peer, failed(IOError), shutdown, writeTimeout
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// `close()` or `closeNow()` was called.
    public static let closedLocally = ConnectionCloseReason(.local)
    /// The peer closed the connection (EOF, hang-up).
    public static let closedByPeer = ConnectionCloseReason(.peer)
    /// The shutdown deadline passed while the connection was still open.
    public static let shutdownDeadline = ConnectionCloseReason(.shutdown)
    /// The peer took no bytes for the connection's `writeTimeout` while output was pending.
    public static let writeTimedOut = ConnectionCloseReason(.writeTimeout)
    /// A read or write failed (e.g. connection reset).
    public static func failed(_ error: IOError) -> ConnectionCloseReason { ConnectionCloseReason(.failed(error)) }

    /// The error, when the connection failed.
    public var error: IOError? {
        if case .failed(let e) = code { return e }
        return nil
    }

    public var description: String {
        switch code {
        case .local: return "closed locally"
        case .peer: return "closed by peer"
        case .shutdown: return "closed at shutdown deadline"
        case .writeTimeout: return "closed: the peer took no bytes within the write timeout"
        case .failed(let e): return "failed: \(e)"
        }
    }
}
