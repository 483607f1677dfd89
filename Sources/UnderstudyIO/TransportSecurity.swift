/// How a connection is secured, as routing needs to know it.
public struct TransportSecurity: Sendable, Equatable {
    /// Plain TCP.
    public static let none = TransportSecurity(isTLS: false, serverName: nil)

    public var isTLS: Bool
    /// The SNI host name the client asked for, lowercased (nil without TLS or without SNI).
    public var serverName: String?

    public init(isTLS: Bool, serverName: String?) {
        self.isTLS = isTLS
        self.serverName = serverName
    }
}
