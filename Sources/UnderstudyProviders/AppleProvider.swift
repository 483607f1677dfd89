import UnderstudyJOSE
import UnderstudyJSON

/// Sign in with Apple: its discovery document, its JWKS, and ID tokens shaped like Apple's.
public struct AppleProvider: Sendable {
    public let provider: ProviderSettings
    public var settings: AppleSettings { provider.apple }
    public let keyRing: KeyRing
    let deriver: IdentityDeriver

    public init(settings: ProviderSettings, keys: KeyRing) {
        self.provider = settings
        self.keyRing = keys
        self.deriver = IdentityDeriver(seed: settings.identitySeed)
    }

    /// The discovery document with endpoints under `baseURL` (Understudy's own address).
    /// Discovery for the path-routed endpoints under `<baseURL>/apple`.
    public func discoveryDocument(baseURL: String) -> JSONValue {
        discoveryDocument(endpointBase: baseURL + "/apple")
    }

    /// Apple's real host.
    public static let realBase = "https://appleid.apple.com"

    /// Discovery with every endpoint under `base` (`realBase` when answering as appleid.apple.com).
    public func discoveryDocument(endpointBase base: String) -> JSONValue {
        [
            "issuer": .string(settings.issuer),
            "authorization_endpoint": .string(base + "/auth/authorize"),
            "token_endpoint": .string(base + "/auth/token"),
            "revocation_endpoint": .string(base + "/auth/revoke"),
            "jwks_uri": .string(base + "/auth/keys"),
            "response_types_supported": ["code", "code id_token"],
            "response_modes_supported": ["query", "fragment", "form_post"],
            "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "name"],
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            "claims_supported": ["aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss",
                                 "nonce", "nonce_supported", "real_user_status", "sub", "transfer_sub"],
        ]
    }

    /// `{"keys": [...]}` in the given key order.
    public func jwksDocument(order: [Int]? = nil) -> JSONValue {
        let jwks = keyRing.jwks
        let ordered = (order ?? Array(jwks.indices)).map { jwks[$0].json }
        return ["keys": .array(ordered)]
    }

    public func subject(forEmail email: String) -> String {
        if let fixed = provider.identity(forEmail: email)?.sub { return fixed }
        return deriver.appleSubject(email: email, teamID: settings.teamID)
    }

    private func boolean(_ b: Bool) -> JSONValue {
        settings.booleanStyle == .string ? .string(b ? "true" : "false") : .bool(b)
    }

    /// Mints an ID token the way Apple writes them: header `{kid, alg}`, claims in Apple's order.
    public func mint(_ request: MintRequest, now: Int64) throws(MintError) -> MintedToken {
        let draft = try draft(request, now: now)
        return try keyRing.sign(header: draft.header, claims: draft.claims, key: draft.key)
    }

    /// The header, claims and key `mint` would sign with; scenarios edit them before signing.
    public func draft(_ request: MintRequest, now: Int64) throws(MintError) -> UnsignedToken {
        try request.checkLimits()
        let key = try keyRing.key(kid: request.kid)
        let email = request.email ?? provider.identities.first?.email ?? "alice@example.com"
        let aud: JSONValue
        if let given = request.aud {
            aud = given
        } else if request.platform == .web {
            aud = .string(settings.servicesIDs.first ?? settings.bundleIDs.first ?? "com.example.app.web")
        } else {
            aud = .string(settings.bundleIDs.first ?? settings.servicesIDs.first ?? "com.example.app")
        }
        let iat = now - provider.iatBackdate
        let lifetime = request.ttl ?? settings.tokenLifetime
        var claims: JSONObject = [
            "iss": .string(settings.issuer),
            "aud": aud,
            "exp": .integer(iat + lifetime),
            "iat": .integer(iat),
            "sub": .string(request.sub ?? subject(forEmail: email)),
        ]
        if let nonce = request.nonce {
            claims["nonce"] = .string(nonce)
        } else if let raw = request.rawNonce {
            claims["nonce"] = .string(Hex.encode(SHA256.hash(Array(raw.utf8))))
        }
        claims["email"] = .string(email)
        claims["email_verified"] = boolean(request.emailVerified ?? true)
        let isPrivate = request.isPrivateEmail ?? email.lowercased().hasSuffix("@privaterelay.appleid.com")
        claims["is_private_email"] = boolean(isPrivate)
        claims["auth_time"] = .integer(iat)
        claims["nonce_supported"] = .bool(true)
        if let status = request.realUserStatus { claims["real_user_status"] = .integer(status) }
        claims.merge(request.claims)
        let header: JSONObject = ["kid": .string(key.kid), "alg": "RS256"]
        return UnsignedToken(header: header, claims: claims, key: key)
    }
}
