/// Settings of the web sign-in flows.
public struct SignInSettings: Sendable {
    /// Complete an authorize request at once for the identity its `login_hint` names (CI).
    public var autoApprove = false
    public var clients = ClientRegistry()
    /// Seconds an authorization code stays valid (Apple: 5 minutes).
    public var codeLifetime: Int64 = 300
    /// Seconds an access token stays valid.
    public var accessTokenLifetime: Int64 = 3600
    public init() {}
}
