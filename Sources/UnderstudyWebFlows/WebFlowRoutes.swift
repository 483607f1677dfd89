import UnderstudyGrants
import UnderstudyHTTP
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

/// The web sign-in flows of both providers, path-routed (`/apple/auth/authorize`,
/// `/google/o/oauth2/v2/auth`, `/google/token`...) and so, through host routing, on the real hosts.
/// Every handler that touches the grants or signs runs as blocking work on the worker pool.
public struct WebFlowRoutes: Sendable {
    private let currentApple: @Sendable () -> AppleProvider
    private let currentGoogle: @Sendable () -> GoogleProvider
    public let grants: GrantStore
    public let settings: SignInSettings
    let clock: UnixClock

    /// The providers as they are now: after a key rotation, tokens are signed with the new key.
    public var apple: AppleProvider { currentApple() }
    public var google: GoogleProvider { currentGoogle() }

    /// `apple` and `google` are asked for on every request, so the flows follow key rotation.
    public init(apple: @escaping @Sendable () -> AppleProvider, google: @escaping @Sendable () -> GoogleProvider,
                grants: GrantStore, settings: SignInSettings, clock: @escaping UnixClock) {
        currentApple = apple; currentGoogle = google; self.grants = grants; self.settings = settings; self.clock = clock
    }

    /// Over fixed providers (tests).
    public init(apple: AppleProvider, google: GoogleProvider, grants: GrantStore, settings: SignInSettings,
                clock: @escaping UnixClock) {
        self.init(apple: { apple }, google: { google }, grants: grants, settings: settings, clock: clock)
    }

    static let csrfCookie = "understudy_csrf"

    public func register(on router: inout Router) {
        for method in [HTTPMethod.get, .post] {
            router.add(method, "/google/o/oauth2/v2/auth") { [self] request, _ in .blocking { authorize(request, provider: .google) } }
            router.add(method, "/apple/auth/authorize") { [self] request, _ in .blocking { authorize(request, provider: .apple) } }
            router.add(method, "/google/v1/userinfo") { [self] request, _ in .blocking { .response(userInfo(request)) } }
            router.add(method, "/google/oauth2/v3/userinfo") { [self] request, _ in .blocking { .response(userInfo(request)) } }
            // The older shape (id, verified_email), still read by many libraries and Supabase Auth.
            for path in ["/google/oauth2/v1/userinfo", "/google/oauth2/v2/userinfo", "/google/userinfo/v2/me"] {
                router.add(method, path) { [self] request, _ in .blocking { .response(userInfo(request, v1: true)) } }
            }
        }
        router.add(.post, "/google/token") { [self] request, _ in .blocking { .response(token(request, provider: .google)) } }
        router.add(.post, "/apple/auth/token") { [self] request, _ in .blocking { .response(token(request, provider: .apple)) } }
        router.add(.post, "/google/revoke") { [self] request, _ in .blocking { .response(revokeGoogle(request)) } }
        router.add(.post, "/apple/auth/revoke") { [self] request, _ in .blocking { .response(revokeApple(request)) } }
        router.add(.post, "/google/device/code") { _, _ in
            .response(FlowError.invalidRequest("the device flow is not supported by Understudy; use the authorization-code flow (/o/oauth2/v2/auth)").response)
        }
    }

    // MARK: Authorize and the sign-in page

    func authorize(_ request: HTTPRequest, provider: FlowProvider) -> HTTPReply {
        let input: [(name: String, value: String)]
        if request.method == .post {
            guard let form = try? request.formBody() else {
                return .response(PageStyle.errorPage(.invalidRequest("a POST to the authorize endpoint must be an application/x-www-form-urlencoded form"), provider: provider))
            }
            input = form
        } else {
            input = request.query
        }
        let parsed: AuthorizeRequest
        do {
            parsed = try AuthorizeRequest.parse(input, provider: provider, clients: settings.clients)
        } catch {
            return .response(failureResponse(error, provider: provider))
        }
        do {
            if input.contains(where: { $0.name == SignInPage.Field.action }) {
                return .response(try submitted(parsed, form: input, request: request))
            }
            if parsed.prompt.contains("none") {
                guard let hint = parsed.loginHint, Self.isEmail(hint) else {
                    return .response(errorRedirect(.loginRequired(), for: parsed))
                }
                guard try grants.consent(provider: provider.rawValue, clientID: parsed.clientID, subject: subject(forEmail: hint, provider)) != nil else {
                    return .response(errorRedirect(.consentRequired(), for: parsed))
                }
                return .response(try complete(parsed, choice: choice(forEmail: hint), hideEmail: false))
            }
            // Without a login_hint, auto-approve signs in the first configured identity (clients
            // such as Better Auth's send none).
            if settings.autoApprove, let hint = parsed.loginHint ?? apple.provider.identities.first?.email {
                guard Self.isEmail(hint) else {
                    return .response(PageStyle.errorPage(.invalidRequest("login_hint \(hint) is not an email address; auto-approve signs in the identity it names"), provider: provider))
                }
                return .response(try complete(parsed, choice: choice(forEmail: hint), hideEmail: false))
            }
            return .response(try page(parsed, request: request))
        } catch {
            return .response(storeUnavailable(error, provider: provider))
        }
    }

    func failureResponse(_ failure: AuthorizeFailure, provider: FlowProvider) -> HTTPResponse {
        guard let target = failure.redirect else { return PageStyle.errorPage(failure.error, provider: provider) }
        return AuthorizationResponse.make(redirectURI: target.uri, mode: target.mode,
                                          [("error", failure.error.code), ("error_description", failure.error.message), ("state", target.state)])
    }

    func errorRedirect(_ error: FlowError, for request: AuthorizeRequest, describe: Bool = true) -> HTTPResponse {
        AuthorizationResponse.make(redirectURI: request.redirectURI, mode: request.responseMode,
                                   [("error", error.code), ("error_description", describe ? error.message : nil), ("state", request.state)])
    }

    func storeUnavailable(_ error: any Error, provider: FlowProvider) -> HTTPResponse {
        var page = PageStyle.errorPage(FlowError("temporarily_unavailable", "the grant store failed (\(error)); retry, or check the --data file's disk"), provider: provider)
        page.status = .serviceUnavailable
        return page
    }

    /// The identities to offer: the configured ones, then the recently used, without repeats.
    func choices() throws -> [SignInPage.Choice] {
        var out = apple.provider.identities.map { SignInPage.Choice(email: $0.email, givenName: $0.givenName, familyName: $0.familyName) }
        for recent in try grants.recentIdentities() where !out.contains(where: { $0.email.lowercased() == recent.email.lowercased() }) {
            out.append(SignInPage.Choice(email: recent.email, givenName: recent.givenName, familyName: recent.familyName))
        }
        return out
    }

    func page(_ request: AuthorizeRequest, request http: HTTPRequest, notice: String? = nil) throws -> HTTPResponse {
        let existing = Self.cookie(Self.csrfCookie, in: http).flatMap { Self.isToken($0) ? $0 : nil }
        let csrf = existing ?? Base64URL.encode(SecureRandom.bytes(24))
        let action = request.provider == .apple ? "authorize" : "auth"
        var response = SignInPage.render(request, choices: try choices(), csrf: csrf, action: action, notice: notice)
        if existing == nil {
            let secure = http.context.isTLS ? "; Secure" : ""
            response.headers.add(name: "Set-Cookie", value: "\(Self.csrfCookie)=\(csrf); Path=/; HttpOnly; SameSite=Strict\(secure)")
        }
        return response
    }

    /// The sign-in form came back: Continue or Cancel, after the CSRF check.
    func submitted(_ request: AuthorizeRequest, form: [(name: String, value: String)], request http: HTTPRequest) throws -> HTTPResponse {
        func field(_ name: String) -> String? { form.first { $0.name == name }?.value }
        guard let cookie = Self.cookie(Self.csrfCookie, in: http), let sent = field(SignInPage.Field.csrf),
              HMACSHA256.constantTimeEquals(Array(cookie.utf8), Array(sent.utf8)) else {
            var page = PageStyle.errorPage(.invalidRequest("the sign-in form expired or did not come from this page (CSRF check); open the authorize URL again"), provider: request.provider)
            page.status = .forbidden
            return page
        }
        if field(SignInPage.Field.action) == "cancel" {
            return errorRedirect(.cancelled(request.provider), for: request, describe: false)
        }
        let typed = (field(SignInPage.Field.email) ?? "").trimmingSpaces()
        let chosen: SignInPage.Choice
        if !typed.isEmpty {
            guard Self.isEmail(typed) else {
                return try page(request, request: http, notice: "\(typed) is not an email address; type one like alice@example.com")
            }
            let given = (field(SignInPage.Field.givenName) ?? "").trimmingSpaces()
            let family = (field(SignInPage.Field.familyName) ?? "").trimmingSpaces()
            guard given.utf8.count <= 100, family.utf8.count <= 100 else {
                return try page(request, request: http, notice: "names are limited to 100 bytes")
            }
            var c = choice(forEmail: typed)
            if !given.isEmpty { c.givenName = given }
            if !family.isEmpty { c.familyName = family }
            chosen = c
        } else if let picked = field(SignInPage.Field.identity), Self.isEmail(picked) {
            chosen = try choices().first { $0.email.lowercased() == picked.lowercased() } ?? choice(forEmail: picked)
        } else {
            return try page(request, request: http, notice: "pick an identity or type a new one's email")
        }
        return try complete(request, choice: chosen, hideEmail: field(SignInPage.Field.hideEmail) == "1")
    }

    /// A configured identity's names, or a plausible given name from the address.
    func choice(forEmail email: String) -> SignInPage.Choice {
        if let known = apple.provider.identity(forEmail: email) {
            return SignInPage.Choice(email: known.email, givenName: known.givenName, familyName: known.familyName)
        }
        return SignInPage.Choice(email: email, givenName: Self.givenName(fromEmail: email))
    }

    func subject(forEmail email: String, _ provider: FlowProvider) -> String {
        provider == .apple ? apple.subject(forEmail: email) : google.subject(forEmail: email)
    }

    /// Apple's Hide My Email: a relay address stable for one identity and one client.
    func relayAddress(for email: String, clientID: String) -> String {
        let mac = HMACSHA256.authenticationCode(for: Array("privaterelay\u{0}\(email.lowercased())\u{0}\(clientID)".utf8),
                                                key: Array(apple.provider.identitySeed.utf8))
        return String(Hex.encode(mac).prefix(10)) + "@privaterelay.appleid.com"
    }

    /// Signs the identity in: records the grant, then answers the redirect URI with the code.
    func complete(_ request: AuthorizeRequest, choice: SignInPage.Choice, hideEmail: Bool) throws -> HTTPResponse {
        let now = clock()
        let provider = request.provider
        let hide = hideEmail && provider == .apple
        let domain = choice.email.split(separator: "@").last.map { String($0).lowercased() }
        let identity = SignedInIdentity(email: hide ? relayAddress(for: choice.email, clientID: request.clientID) : choice.email,
                                        subject: subject(forEmail: choice.email, provider), givenName: choice.givenName,
                                        familyName: choice.familyName, isPrivateEmail: hide,
                                        hd: request.hd.flatMap { $0.lowercased() == domain ? $0 : nil })
        let code = Self.newCode(provider)
        var record = AuthorizationRecord(provider: provider.rawValue, clientID: request.clientID, subject: identity.subject,
                                         code: code, redirectURI: request.redirectURI, scope: request.scope,
                                         identity: identity.encoded, now: now)
        record.nonce = request.nonce
        record.codeChallenge = request.codeChallenge
        record.codeChallengeMethod = request.codeChallengeMethod?.rawValue
        record.offline = provider == .apple || request.offline
        record.forceConsent = provider == .apple || request.prompt.contains("consent")
        record.wantsAppleUser = provider == .apple && request.responseMode == .formPost
            && request.scopes.contains { $0 == "name" || $0 == "email" }
        record.includeGrantedScopes = request.includeGrantedScopes
        record.codeLifetime = settings.codeLifetime
        record.recentEmail = choice.email
        record.recentGivenName = choice.givenName
        record.recentFamilyName = choice.familyName
        let outcome = try grants.authorize(record)
        switch provider {
        case .google:
            return AuthorizationResponse.make(redirectURI: request.redirectURI, mode: request.responseMode,
                                              [("state", request.state), ("code", code), ("scope", outcome.scope),
                                               ("authuser", "0"), ("prompt", request.prompt.contains("consent") ? "consent" : "none")])
        case .apple:
            var idToken: String?
            if request.wantsIDToken {
                idToken = try? appleIDToken(identity, clientID: request.clientID, nonce: request.nonce,
                                            extra: ["c_hash": .string(TokenHash.of(code))])
            }
            let user = outcome.sendsAppleUser ? identity.appleUserJSON(scopes: request.scopes) : nil
            return AuthorizationResponse.make(redirectURI: request.redirectURI, mode: request.responseMode,
                                              [("state", request.state), ("code", code), ("id_token", idToken), ("user", user)])
        }
    }

    // MARK: Token endpoint

    func token(_ request: HTTPRequest, provider: FlowProvider) -> HTTPResponse {
        do {
            guard let form = try? request.formBody() else {
                throw FlowError.invalidRequest("the token request must be an application/x-www-form-urlencoded form")
            }
            let tokenRequest = try TokenRequest.parse(form: form, authorization: request.headers["Authorization"], provider: provider)
            let now = clock()
            try authenticate(tokenRequest.clientID, secret: tokenRequest.clientSecret, provider: provider, now: now)
            switch tokenRequest.grant {
            case .authorizationCode(let code, let redirectURI, let verifier):
                return try exchange(code: code, redirectURI: redirectURI, verifier: verifier, clientID: tokenRequest.clientID,
                                    provider: provider, now: now)
            case .refreshToken(let refresh):
                return try refreshGrant(refresh, clientID: tokenRequest.clientID, provider: provider, now: now)
            }
        } catch let error as FlowError {
            return error.response
        } catch {
            return FlowError("temporarily_unavailable", "the grant store failed (\(error)); retry", status: .serviceUnavailable).response
        }
    }

    /// Client authentication: a configured Google client's secret must match; Apple's client
    /// secret JWT is always checked.
    func authenticate(_ clientID: String, secret: String?, provider: FlowProvider, now: Int64) throws(FlowError) {
        let client = try settings.clients.client(clientID, provider: provider)
        switch provider {
        case .google:
            if let expected = client?.clientSecret {
                guard let secret, HMACSHA256.constantTimeEquals(Array(secret.utf8), Array(expected.utf8)) else {
                    throw .invalidClient("the client secret is wrong or missing for client \(clientID)", provider: .google)
                }
            }
        case .apple:
            try AppleClientSecret.check(secret, clientID: clientID, client: client, now: now)
        }
    }

    func exchange(code: String, redirectURI: String?, verifier: String?, clientID: String, provider: FlowProvider,
                  now: Int64) throws -> HTTPResponse {
        let stored: StoredCode
        switch try grants.redeem(code: code, provider: provider.rawValue, now: now) {
        case .unknown: throw FlowError.invalidGrant("Malformed auth code: this code was not issued by this server")
        case .expired: throw FlowError.invalidGrant("the authorization code has expired (codes are valid \(settings.codeLifetime) s); sign in again")
        case .alreadyUsed: throw FlowError.invalidGrant("the authorization code was already used; the tokens issued for it are revoked")
        case .valid(let s): stored = s
        }
        guard stored.clientID == clientID else { throw FlowError.invalidGrant("the code was issued to client \(stored.clientID), not \(clientID)") }
        guard let redirectURI else { throw FlowError.invalidRequest("Missing parameter: redirect_uri (the one the authorize request used)") }
        guard redirectURI == stored.redirectURI else {
            let message = "redirect_uri \(redirectURI) differs from the authorize request's \(stored.redirectURI)"
            throw provider == .google ? FlowError.redirectURIMismatch(message) : FlowError.invalidGrant(message)
        }
        if let challenge = stored.codeChallenge {
            guard let verifier else { throw FlowError.invalidGrant("Missing code verifier.") }
            let method = PKCE.Method(rawValue: stored.codeChallengeMethod ?? "plain") ?? .plain
            guard PKCE.verify(verifier, challenge: challenge, method: method) else { throw FlowError.invalidGrant("Invalid code verifier.") }
        }
        guard let identity = SignedInIdentity(encoded: stored.identity) else { throw FlowError.invalidGrant("the code's identity is unreadable") }
        let access = Self.newToken(provider, kind: .access)
        var tokens = [IssuedToken(token: access, kind: .access, grantID: code, provider: provider.rawValue, clientID: clientID,
                                  subject: stored.subject, scope: stored.scope, identity: stored.identity, createdAt: now,
                                  expiresAt: now + settings.accessTokenLifetime)]
        var refresh: String?
        if stored.issuesRefresh {
            refresh = Self.newToken(provider, kind: .refresh)
            tokens.append(IssuedToken(token: refresh!, kind: .refresh, grantID: code, provider: provider.rawValue, clientID: clientID,
                                      subject: stored.subject, scope: stored.scope, identity: stored.identity, createdAt: now, expiresAt: nil))
        }
        try grants.insert(tokens)
        return try tokenResponse(access: access, refresh: refresh, identity: identity, scope: stored.scope, nonce: stored.nonce,
                                 clientID: clientID, provider: provider)
    }

    func refreshGrant(_ refresh: String, clientID: String, provider: FlowProvider, now: Int64) throws -> HTTPResponse {
        guard let stored = try grants.liveToken(refresh, now: now), stored.kind == .refresh, stored.provider == provider.rawValue else {
            throw FlowError.invalidGrant("Token has been expired or revoked.")
        }
        guard stored.clientID == clientID else { throw FlowError.invalidGrant("the refresh token was issued to client \(stored.clientID), not \(clientID)") }
        guard let identity = SignedInIdentity(encoded: stored.identity) else { throw FlowError.invalidGrant("the token's identity is unreadable") }
        let access = Self.newToken(provider, kind: .access)
        try grants.insert([IssuedToken(token: access, kind: .access, grantID: stored.grantID, provider: provider.rawValue,
                                       clientID: clientID, subject: stored.subject, scope: stored.scope, identity: stored.identity,
                                       createdAt: now, expiresAt: now + settings.accessTokenLifetime)])
        return try tokenResponse(access: access, refresh: nil, identity: identity, scope: stored.scope, nonce: nil,
                                 clientID: clientID, provider: provider)
    }

    func tokenResponse(access: String, refresh: String?, identity: SignedInIdentity, scope: String, nonce: String?,
                       clientID: String, provider: FlowProvider) throws -> HTTPResponse {
        var body = JSONObject()
        body["access_token"] = .string(access)
        body["token_type"] = "Bearer"
        body["expires_in"] = .integer(settings.accessTokenLifetime - (provider == .google ? 1 : 0))
        if let refresh { body["refresh_token"] = .string(refresh) }
        let hash: JSONObject = ["at_hash": .string(TokenHash.of(access))]
        switch provider {
        case .google:
            body["scope"] = .string(scope)
            if scope.split(separator: " ").contains("openid") {
                body["id_token"] = .string(try googleIDToken(identity, clientID: clientID, nonce: nonce, extra: hash))
            }
        case .apple:
            body["id_token"] = .string(try appleIDToken(identity, clientID: clientID, nonce: nonce, extra: hash))
        }
        return .json(.object(body), headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
    }

    func googleIDToken(_ identity: SignedInIdentity, clientID: String, nonce: String?, extra: JSONObject) throws -> String {
        var mint = MintRequest()
        mint.aud = .string(clientID)
        mint.azp = clientID
        mint.sub = identity.subject
        mint.email = identity.email
        mint.givenName = identity.givenName
        mint.familyName = identity.familyName
        mint.name = identity.name
        mint.nonce = nonce
        mint.hd = identity.hd
        mint.claims = extra
        return try google.mint(mint, now: clock()).idToken
    }

    func appleIDToken(_ identity: SignedInIdentity, clientID: String, nonce: String?, extra: JSONObject) throws -> String {
        var mint = MintRequest()
        mint.aud = .string(clientID)
        mint.sub = identity.subject
        mint.email = identity.email
        mint.isPrivateEmail = identity.isPrivateEmail
        mint.nonce = nonce
        mint.claims = extra
        return try apple.mint(mint, now: clock()).idToken
    }

    // MARK: Userinfo, revoke, tokeninfo

    func userInfo(_ request: HTTPRequest, v1: Bool = false) -> HTTPResponse {
        let challenge = "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""
        func unauthorized() -> HTTPResponse {
            var r = FlowError.invalidToken("Invalid Credentials: send a live access token as Authorization: Bearer <token>").response
            r.headers.replaceOrAdd(name: "WWW-Authenticate", value: challenge)
            return r
        }
        let header = request.headers["Authorization"] ?? ""
        let bearer = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)).trimmingSpaces() : request.queryValue("access_token")
        guard let bearer, !bearer.isEmpty else { return unauthorized() }
        do {
            guard let token = try grants.liveToken(bearer, now: clock()), token.kind == .access, token.provider == "google",
                  let identity = SignedInIdentity(encoded: token.identity) else { return unauthorized() }
            let scopes = token.scope.split(separator: " ")
            var body: JSONObject = [v1 ? "id" : "sub": .string(identity.subject)]
            if scopes.contains("profile") {
                if let name = identity.name { body["name"] = .string(name) }
                if let given = identity.givenName { body["given_name"] = .string(given) }
                if let family = identity.familyName { body["family_name"] = .string(family) }
            }
            if scopes.contains("email") {
                body["email"] = .string(identity.email)
                body[v1 ? "verified_email" : "email_verified"] = .bool(true)
            }
            if let hd = identity.hd { body["hd"] = .string(hd) }
            return .json(.object(body), headers: ["Cache-Control": "no-store"])
        } catch {
            return FlowError("temporarily_unavailable", "the grant store failed (\(error)); retry", status: .serviceUnavailable).response
        }
    }

    /// Google's tokeninfo for an access token: its claims as strings.
    public func accessTokenInfo(_ value: String) -> HTTPResponse {
        let now = clock()
        guard let token = try? grants.liveToken(value, now: now), token.kind == .access, token.provider == "google",
              let identity = SignedInIdentity(encoded: token.identity) else {
            return FlowError("invalid_token", "Invalid Value").response
        }
        var body: JSONObject = ["azp": .string(token.clientID), "aud": .string(token.clientID), "sub": .string(token.subject),
                                "scope": .string(token.scope)]
        let exp = token.expiresAt ?? now
        body["exp"] = .string(String(exp))
        body["expires_in"] = .string(String(max(0, exp - now)))
        if token.scope.split(separator: " ").contains("email") {
            body["email"] = .string(identity.email)
            body["email_verified"] = "true"
        }
        body["access_type"] = "online"
        return .json(.object(body))
    }

    func revokeGoogle(_ request: HTTPRequest) -> HTTPResponse {
        let value = request.formValue("token") ?? request.queryValue("token")
        guard let value, !value.isEmpty else { return FlowError.invalidRequest("Missing required parameter: token").response }
        do {
            guard try grants.revoke(token: value, provider: "google", now: clock()) else {
                return FlowError("invalid_token", "Token expired or revoked").response
            }
            return .json([:])
        } catch {
            return FlowError("temporarily_unavailable", "the grant store failed (\(error)); retry", status: .serviceUnavailable).response
        }
    }

    func revokeApple(_ request: HTTPRequest) -> HTTPResponse {
        guard let form = try? request.formBody() else {
            return FlowError.invalidRequest("the revoke request must be an application/x-www-form-urlencoded form").response
        }
        func field(_ name: String) -> String? { form.first { $0.name == name }?.value }
        guard let clientID = field("client_id"), !clientID.isEmpty else {
            return FlowError.invalidClient("client_id is missing", provider: .apple).response
        }
        guard let value = field("token"), !value.isEmpty else { return FlowError.invalidRequest("token is missing").response }
        do {
            let now = clock()
            try authenticate(clientID, secret: field("client_secret"), provider: .apple, now: now)
            // RFC 7009: an unknown or already revoked token is answered 200 too.
            _ = try grants.revoke(token: value, provider: "apple", now: now)
            return HTTPResponse(status: .ok, headers: ["Cache-Control": "no-store"])
        } catch let error as FlowError {
            return error.response
        } catch {
            return FlowError("temporarily_unavailable", "the grant store failed (\(error)); retry", status: .serviceUnavailable).response
        }
    }

    // MARK: Helpers

    static func newCode(_ provider: FlowProvider) -> String {
        switch provider {
        case .google: return "4/0" + Base64URL.encode(SecureRandom.bytes(33))
        case .apple: return "c" + Hex.encode(SecureRandom.bytes(16)) + ".0.understudy." + Base64URL.encode(SecureRandom.bytes(16))
        }
    }

    static func newToken(_ provider: FlowProvider, kind: IssuedToken.Kind) -> String {
        switch (provider, kind) {
        case (.google, .access): return "ya29." + Base64URL.encode(SecureRandom.bytes(48))
        case (.google, .refresh): return "1//0" + Base64URL.encode(SecureRandom.bytes(48))
        case (.apple, .access): return "a" + Hex.encode(SecureRandom.bytes(16)) + ".0.understudy." + Base64URL.encode(SecureRandom.bytes(16))
        case (.apple, .refresh): return "r" + Hex.encode(SecureRandom.bytes(16)) + ".0.understudy." + Base64URL.encode(SecureRandom.bytes(16))
        }
    }

    static func isEmail(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        return s.utf8.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && s.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && !"<>\"'(),;:\\[]".unicodeScalars.contains($0) }
    }

    static func isToken(_ s: String) -> Bool {
        (16...128).contains(s.utf8.count) && s.utf8.allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
        }
    }

    static func cookie(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for part in header.split(separator: ";") {
                let pair = part.drop { $0 == " " }
                if pair.hasPrefix(name + "=") { return String(pair.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }

    static func givenName(fromEmail email: String) -> String {
        let local = email.split(separator: "@").first.map(String.init) ?? email
        let first = local.split(whereSeparator: { ".-_+".contains($0) }).first.map(String.init) ?? local
        return first.prefix(1).uppercased() + first.dropFirst()
    }
}

