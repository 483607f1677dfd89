/// A layer put between every accepted connection of a listener and its protocol handler: given
/// the protocol handler, returns the handler the socket gets (TLS for an HTTPS or SMTPS listener).
public struct ConnectionLayer: Sendable {
    public let wrap: @Sendable (any ConnectionHandler) -> any ConnectionHandler

    public init(_ wrap: @escaping @Sendable (any ConnectionHandler) -> any ConnectionHandler) {
        self.wrap = wrap
    }
}
