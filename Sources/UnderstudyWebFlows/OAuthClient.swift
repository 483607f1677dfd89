import UnderstudyJOSE

/// A client the configuration lists: the real provider would know it by registration, so its
/// secret, redirect URIs and (Apple) team and key are enforced.
public struct OAuthClient: Sendable {
    public var provider: FlowProvider
    public var clientID: String
    /// Google's client secret; nil accepts any.
    public var clientSecret: String?
    /// Exact redirect URIs allowed; empty allows any.
    public var redirectURIs: [String]
    /// Apple: the team id the client secret's `iss` must name.
    public var teamID: String?
    /// Apple: the key id the client secret's `kid` header must name.
    public var keyID: String?
    /// Apple: the developer's public key; when set the client secret's signature is verified.
    public var publicKey: JWS.ES256.PublicKey?

    public init(provider: FlowProvider, clientID: String, clientSecret: String? = nil, redirectURIs: [String] = [],
                teamID: String? = nil, keyID: String? = nil, publicKey: JWS.ES256.PublicKey? = nil) {
        self.provider = provider; self.clientID = clientID; self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs; self.teamID = teamID; self.keyID = keyID; self.publicKey = publicKey
    }
}
