import Synchronization

/// A configured TLS endpoint from which connections are made: built once, shared by every
/// connection and thread (swift-nio-ssl's `NIOSSLContext`).
public struct TLSContext: Sendable {
    let backing: ContextBacking

    public init(configuration: TLSConfiguration) throws(TLSError) {
        backing = try ContextBacking(configuration: configuration)
    }

    public var configuration: TLSConfiguration { backing.configuration }

    /// How many connections made from this context are alive (made and not yet deinitialised).
    public var liveConnectionCount: Int { backing.liveConnections.load(ordering: .relaxed) }
}
