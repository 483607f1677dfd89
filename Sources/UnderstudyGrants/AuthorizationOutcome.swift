/// What the store decided for an authorization.
public struct AuthorizationOutcome: Sendable, Equatable {
    /// The scopes granted (with `include_granted_scopes`, those consented to before as well).
    public var scope: String
    /// The code's exchange issues a refresh token.
    public var issuesRefresh: Bool
    /// This is the identity's first consent for the client: Apple's `user` goes with it.
    public var sendsAppleUser: Bool
}
