/// Which clients a provider accepts: any client_id when none is configured for it (a stand-in
/// should not demand registration); only the configured ones, each with its rules, otherwise.
public struct ClientRegistry: Sendable {
    public var clients: [OAuthClient]

    public init(_ clients: [OAuthClient] = []) { self.clients = clients }

    /// The configured client, nil for an open provider, or `invalid_client`.
    public func client(_ clientID: String, provider: FlowProvider) throws(FlowError) -> OAuthClient? {
        let mine = clients.filter { $0.provider == provider }
        guard !mine.isEmpty else { return nil }
        guard let client = mine.first(where: { $0.clientID == clientID }) else {
            throw .invalidClient("client_id \(clientID) is not one of the configured \(provider.rawValue) clients ("
                + mine.map(\.clientID).joined(separator: ", ") + "); add it to `clients` in the configuration", provider: provider)
        }
        return client
    }

    /// Refuses a redirect URI the client did not register (exact match, as both providers do).
    public static func check(redirectURI: String, for client: OAuthClient?) throws(FlowError) {
        guard let client, !client.redirectURIs.isEmpty else { return }
        guard client.redirectURIs.contains(redirectURI) else {
            throw .redirectURIMismatch("redirect_uri \(redirectURI) is not registered for client \(client.clientID); registered: "
                + client.redirectURIs.joined(separator: ", "))
        }
    }
}
