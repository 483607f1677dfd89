/// What `GrantStore.authorize` records for one completed sign-in.
public struct AuthorizationRecord: Sendable {
    public var provider: String
    public var clientID: String
    public var subject: String
    public var code: String
    public var redirectURI: String
    /// Space-separated scopes asked for.
    public var scope: String
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    /// The signed-in identity, encoded by the caller.
    public var identity: String
    /// `access_type=offline`: a refresh token is wanted.
    public var offline = false
    /// `prompt=consent`: a refresh token is issued again even if one was before.
    public var forceConsent = false
    /// Apple's `user` is sent on the first consent only: true when this flow would send it.
    public var wantsAppleUser = false
    /// `include_granted_scopes=true`: the grant covers the scopes consented to before too.
    public var includeGrantedScopes = false
    public var now: Int64
    public var codeLifetime: Int64 = 300
    /// Remembered for the sign-in page's "recently used" list.
    public var recentEmail: String?
    public var recentGivenName: String?
    public var recentFamilyName: String?

    public init(provider: String, clientID: String, subject: String, code: String, redirectURI: String, scope: String,
                identity: String, now: Int64) {
        self.provider = provider; self.clientID = clientID; self.subject = subject; self.code = code
        self.redirectURI = redirectURI; self.scope = scope; self.identity = identity; self.now = now
    }
}
