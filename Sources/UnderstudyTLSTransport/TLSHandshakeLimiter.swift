import Synchronization

/// Bounds how many TLS handshakes are in progress at once across a listener's connections (all
/// loops): a handshake costs a private-key operation and memory, and a client that opens
/// connections and never finishes them must not be able to make the server hold unboundedly many.
/// Past the limit a new connection is closed at once; one that completes or fails frees its place.
public final class TLSHandshakeLimiter: Sendable {
    public let limit: Int
    private let inProgress = Atomic<Int>(0)

    public init(limit: Int = 256) {
        precondition(limit > 0, "a handshake limit must allow at least one")
        self.limit = limit
    }

    /// Handshakes in progress now.
    public var count: Int { inProgress.load(ordering: .relaxed) }

    func acquire() -> Bool {
        if inProgress.wrappingAdd(1, ordering: .relaxed).newValue > limit {
            inProgress.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func release() {
        inProgress.wrappingSubtract(1, ordering: .relaxed)
    }
}
