import UnderstudyJOSE
import UnderstudyJSON

/// Google Sign-In: discovery, v3 JWKS, v1 PEM certificates, tokeninfo, and ID tokens shaped like Google's.
public struct GoogleProvider: Sendable {
    public let provider: ProviderSettings
    public var settings: GoogleSettings { provider.google }
    public let keyRing: KeyRing
    /// PEM certificates by kid, made once at start (v1 certs endpoint).
    public let certificates: [(kid: String, pem: String)]
    let deriver: IdentityDeriver

    /// Certificates are self-signed over the configured keys, valid from a day before `now` for two weeks,
    /// like Google's rotating certificates.
    public init(settings: ProviderSettings, keys: KeyRing, now: Int64) throws(JOSEError) {
        self.provider = settings
        self.keyRing = keys
        self.deriver = IdentityDeriver(seed: settings.identitySeed)
        var certs: [(kid: String, pem: String)] = []
        for (n, key) in keys.keys.enumerated() {
            let serial = IdentityDeriver.number(SHA256.hash(Array(key.kid.utf8)).prefix(7)) + UInt64(n)
            let cert = try X509Certificate.selfSigned(key: key.privateKey, commonName: "federated-signon.system.gserviceaccount.com",
                                                      serialNumber: serial, notBefore: now - 86_400,
                                                      notAfter: now + 14 * 86_400)
            certs.append((key.kid, cert.pemRepresentation))
        }
        self.certificates = certs
    }

    /// The discovery document with endpoints under `baseURL` (Understudy's own address).
    /// Discovery for the path-routed endpoints under `<baseURL>/google`.
    public func discoveryDocument(baseURL: String) -> JSONValue {
        discoveryDocument(hosts: .pathRouted(baseURL + "/google"))
    }

    /// Discovery naming each endpoint on the host that serves it (`GoogleHosts.real`, or one base).
    public func discoveryDocument(hosts: GoogleHosts) -> JSONValue {
        [
            "issuer": .string(settings.issuer),
            "authorization_endpoint": .string(hosts.accounts + "/o/oauth2/v2/auth"),
            "device_authorization_endpoint": .string(hosts.oauth2 + "/device/code"),
            "token_endpoint": .string(hosts.oauth2 + "/token"),
            "userinfo_endpoint": .string(hosts.openIDConnect + "/v1/userinfo"),
            "revocation_endpoint": .string(hosts.oauth2 + "/revoke"),
            "jwks_uri": .string(hosts.www + "/oauth2/v3/certs"),
            "response_types_supported": ["code", "token", "id_token", "code token", "code id_token",
                                         "token id_token", "code token id_token", "none"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "claims_supported": ["aud", "email", "email_verified", "exp", "family_name", "given_name", "iat",
                                 "iss", "name", "picture", "sub"],
            "code_challenge_methods_supported": ["plain", "S256"],
            "grant_types_supported": ["authorization_code", "refresh_token",
                                      "urn:ietf:params:oauth:grant-type:device_code",
                                      "urn:ietf:params:oauth:grant-type:jwt-bearer"],
        ]
    }

    public func jwksDocument() -> JSONValue {
        ["keys": .array(keyRing.jwks.map(\.json))]
    }

    /// `{"<kid>": "-----BEGIN CERTIFICATE-----\n..."}`, Google's v1 format.
    public func certificatesDocument() -> JSONValue {
        .object(JSONObject(certificates.map { ($0.kid, JSONValue.string($0.pem)) }))
    }

    public func subject(forEmail email: String) -> String {
        if let fixed = provider.identity(forEmail: email)?.sub { return fixed }
        return deriver.googleSubject(email: email)
    }

    /// `aud` and `azp` as Google sets them: Android and iOS (with a server client id) tokens have the
    /// web client id as audience and the native client id as authorized party.
    func audience(for request: MintRequest) -> (aud: JSONValue, azp: String) {
        switch (request.aud, request.platform) {
        case (let aud?, let platform):
            let azp = request.azp ?? platform.map(nativeClientID) ?? aud.stringValue ?? settings.webClientID
            return (aud, azp)
        case (nil, let platform):
            let azp = request.azp ?? nativeClientID(platform ?? .web)
            return (.string(settings.webClientID), azp)
        }
    }

    private func nativeClientID(_ p: ClientPlatform) -> String {
        switch p {
        case .web: return settings.webClientID
        case .ios: return settings.iosClientID
        case .android: return settings.androidClientID
        }
    }

    /// Mints an ID token the way Google writes them: header `{alg, kid, typ}`, claims in Google's order.
    public func mint(_ request: MintRequest, now: Int64) throws(MintError) -> MintedToken {
        try request.checkLimits()
        let key = try keyRing.key(kid: request.kid)
        let email = request.email ?? provider.identities.first?.email ?? "alice@example.com"
        let identity = provider.identity(forEmail: email)
        let (aud, azp) = audience(for: request)
        let iat = now - provider.iatBackdate
        var claims: JSONObject = [
            "iss": .string(settings.issuer),
            "azp": .string(azp),
            "aud": aud,
            "sub": .string(request.sub ?? subject(forEmail: email)),
        ]
        if let hd = request.hd { claims["hd"] = .string(hd) }
        claims["email"] = .string(email)
        claims["email_verified"] = .bool(request.emailVerified ?? true)
        if let nonce = request.nonce {
            claims["nonce"] = .string(nonce)
        } else if let raw = request.rawNonce {
            claims["nonce"] = .string(Hex.encode(SHA256.hash(Array(raw.utf8))))
        }
        let given = request.givenName ?? identity?.givenName ?? Self.givenName(fromEmail: email)
        let family = request.familyName ?? identity?.familyName
        let name = request.name ?? identity?.name ?? ([given, family].compactMap { $0 }.joined(separator: " "))
        if !name.isEmpty { claims["name"] = .string(name) }
        if let picture = request.picture ?? identity?.picture { claims["picture"] = .string(picture) }
        if !given.isEmpty { claims["given_name"] = .string(given) }
        if let family { claims["family_name"] = .string(family) }
        if let locale = request.locale { claims["locale"] = .string(locale) }
        claims["iat"] = .integer(iat)
        claims["exp"] = .integer(iat + (request.ttl ?? settings.tokenLifetime))
        claims.merge(request.claims)
        let header: JSONObject = ["alg": "RS256", "kid": .string(key.kid), "typ": "JWT"]
        return try keyRing.sign(header: header, claims: claims, key: key)
    }

    /// "alice.smith@example.com" -> "Alice": a plausible first name for identities not in the configuration.
    static func givenName(fromEmail email: String) -> String {
        let local = email.split(separator: "@").first.map(String.init) ?? email
        let first = local.split(whereSeparator: { ".-_+".contains($0) }).first.map(String.init) ?? local
        return first.prefix(1).uppercased() + first.dropFirst()
    }

    /// What Google's tokeninfo answers for a valid token: every claim value as a string, plus alg, kid, typ.
    /// nil when the token is malformed, signed by another key, or expired.
    public func tokenInfo(_ token: String, now: Int64) -> JSONValue? {
        guard token.utf8.count <= 16 * 1024, let decoded = try? JWS.decode(token),
              let kid = decoded.header["kid"]?.stringValue, let key = keyRing.publicKey(kid: kid),
              let verified = try? JWS.verify(token, key: .rs256(key)), let claims = verified.claims
        else { return nil }
        if let exp = claims["exp"]?.intValue, exp <= now { return nil }
        var out = JSONObject()
        for (k, v) in claims {
            switch v {
            case .string(let s): out[k] = .string(s)
            case .integer(let n): out[k] = .string(String(n))
            case .bool(let b): out[k] = .string(b ? "true" : "false")
            case .double, .array, .object, .null: out[k] = .string(v.serialized())
            }
        }
        out["alg"] = .string(verified.header["alg"]?.stringValue ?? "RS256")
        out["kid"] = .string(kid)
        out["typ"] = .string(verified.header["typ"]?.stringValue ?? "JWT")
        return .object(out)
    }
}
