/// Where a connection's handshake stands.
public enum TLSHandshakeState: Sendable {
    /// Still exchanging handshake messages: feed it bytes, drain what it writes.
    case incomplete
    /// Done: application data flows.
    case complete
    /// Failed; the connection is unusable. Drain once more to send the alert, then close the socket.
    case failed(TLSError)

    public var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }

    public var isFailed: Bool {
        if case .failed = self { return true }
        return false
    }
}
