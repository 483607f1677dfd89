/// Where each of Google's endpoints lives: on the real service they are spread over four hosts;
/// path-routed on localhost they all sit under one base.
public struct GoogleHosts: Sendable, Equatable {
    /// Sign-in: `/o/oauth2/v2/auth`.
    public var accounts: String
    /// Tokens: `/token`, `/revoke`, `/device/code`, `/tokeninfo`.
    public var oauth2: String
    /// `/v1/userinfo`.
    public var openIDConnect: String
    /// Keys: `/oauth2/v3/certs`, `/oauth2/v1/certs`.
    public var www: String

    public static let real = GoogleHosts(accounts: "https://accounts.google.com", oauth2: "https://oauth2.googleapis.com",
                                         openIDConnect: "https://openidconnect.googleapis.com", www: "https://www.googleapis.com")

    /// Every endpoint under `base` (`http://127.0.0.1:7080/google`).
    public static func pathRouted(_ base: String) -> GoogleHosts {
        GoogleHosts(accounts: base, oauth2: base, openIDConnect: base, www: base)
    }
}
