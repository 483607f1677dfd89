import UnderstudyJOSE

/// How Apple-style boolean claims (`email_verified`, `is_private_email`) are written: real Apple tokens
/// have carried both the strings "true"/"false" and JSON booleans.
public enum AppleBooleanStyle: String, Sendable, CaseIterable {
    case string, bool
}

public struct AppleSettings: Sendable {
    public var issuer = "https://appleid.apple.com"
    public var teamID = "UNDRSTDY42"
    public var bundleIDs = ["com.example.app"]
    public var servicesIDs = ["com.example.app.web"]
    public var tokenLifetime: Int64 = 600
    public var booleanStyle = AppleBooleanStyle.string
    /// Serve `/auth/keys` in a different order on each fetch, as Apple does.
    public var shuffleKeys = true
    public init() {}
}

public struct GoogleSettings: Sendable {
    public var issuer = "https://accounts.google.com"
    public var webClientID = "123456789012-understudyweb.apps.googleusercontent.com"
    public var iosClientID = "123456789012-understudyios.apps.googleusercontent.com"
    public var androidClientID = "123456789012-understudyandroid.apps.googleusercontent.com"
    public var tokenLifetime: Int64 = 3600
    /// `max-age` of the certs responses, in seconds.
    public var certsMaxAge: Int64 = 21600
    public init() {}
}

/// A predefined test identity: minting for its email fills the profile claims from here.
public struct TestIdentity: Sendable, Hashable {
    public var email: String
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var picture: String?
    /// A fixed subject; otherwise it is derived from the identity seed.
    public var sub: String?
    public init(email: String, name: String? = nil, givenName: String? = nil, familyName: String? = nil,
                picture: String? = nil, sub: String? = nil) {
        self.email = email; self.name = name; self.givenName = givenName; self.familyName = familyName
        self.picture = picture; self.sub = sub
    }
}

/// Everything the providers need, already validated by the application's configuration layer.
public struct ProviderSettings: Sendable {
    public var apple = AppleSettings()
    public var google = GoogleSettings()
    public var identities: [TestIdentity] = []
    public var identitySeed = "understudy-development-seed"
    /// Seconds `iat` is set in the past, since some verifiers allow no clock skew.
    public var iatBackdate: Int64 = 5
    /// Seconds a rotated-out key stays published before it is retired.
    public var rotationGrace: Int64 = 3600
    /// The base URL discovery documents point at, e.g. `http://127.0.0.1:7080`; nil derives it from
    /// each request's Host header, so the documents name the address the client actually used.
    public var publicURL: String?
    public init() {}

    public func identity(forEmail email: String) -> TestIdentity? {
        let e = email.lowercased()
        return identities.first { $0.email.lowercased() == e }
    }
}

/// One signing key of a provider: the kid is the key file's name.
public struct ProviderKey: Sendable {
    public var kid: String
    public var privateKey: JWS.RS256.PrivateKey
    public init(kid: String, privateKey: JWS.RS256.PrivateKey) { self.kid = kid; self.privateKey = privateKey }
}
