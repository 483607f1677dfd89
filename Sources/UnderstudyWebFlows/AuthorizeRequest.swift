/// A validated authorize request of either provider (pure: parameters in, request or failure out).
///
/// Google (`/o/oauth2/v2/auth`): response_type `code`, scope with `openid email profile`, state,
/// nonce, PKCE `code_challenge` with `S256` or `plain`, login_hint, hd, prompt (`none`, `consent`,
/// `select_account`), access_type `offline`, include_granted_scopes. Apple (`/auth/authorize`):
/// response_type `code` or `code id_token`, response_mode `query`, `fragment` or `form_post`
/// (any scope requires form_post, and id_token rules out query), scope `name email`, state, nonce.
public struct AuthorizeRequest: Sendable {
    public var provider: FlowProvider
    public var clientID: String
    public var redirectURI: String
    /// `code`, and for Apple optionally `id_token` too.
    public var wantsIDToken: Bool
    public var responseMode: ResponseMode
    public var scopes: [String]
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: PKCE.Method?
    public var loginHint: String?
    public var hd: String?
    public var prompt: Set<String>
    public var offline: Bool
    public var includeGrantedScopes: Bool
    /// The parameters as received (known ones only), to carry through the sign-in form.
    public var parameters: [(name: String, value: String)]

    /// Parameters this code reads; the sign-in form carries exactly these.
    static let known = ["client_id", "redirect_uri", "response_type", "response_mode", "scope", "state", "nonce",
                        "code_challenge", "code_challenge_method", "login_hint", "hd", "prompt", "access_type",
                        "include_granted_scopes"]
    /// The longest value of any parameter.
    public static let maximumValueLength = 4096

    public var scope: String { scopes.joined(separator: " ") }

    public static func parse(_ input: [(name: String, value: String)], provider: FlowProvider,
                             clients: ClientRegistry) throws(AuthorizeFailure) -> AuthorizeRequest {
        var values: [String: String] = [:]
        var kept: [(name: String, value: String)] = []
        for (name, value) in input where known.contains(name) {
            guard values[name] == nil else {
                throw .page(.invalidRequest("parameter \(name) is given more than once; give it once"))
            }
            guard value.utf8.count <= maximumValueLength else {
                throw .page(.invalidRequest("parameter \(name) is longer than \(maximumValueLength) bytes"))
            }
            values[name] = value
            kept.append((name, value))
        }
        // Faults before a client and redirect URI are trusted: an error page, never a redirect.
        guard let clientID = values["client_id"], !clientID.isEmpty else {
            throw .page(.invalidRequest("client_id is missing; pass your \(provider == .apple ? "Services ID" : "OAuth client id")"))
        }
        let client: OAuthClient?
        do { client = try clients.client(clientID, provider: provider) } catch { throw .page(error) }
        guard let redirectURI = values["redirect_uri"], !redirectURI.isEmpty else {
            throw .page(.invalidRequest("redirect_uri is missing; pass the callback URL registered for \(clientID)"))
        }
        guard isAbsoluteURI(redirectURI), !redirectURI.contains("#") else {
            throw .page(.invalidRequest("redirect_uri \(redirectURI) must be an absolute URI without a fragment"))
        }
        do { try ClientRegistry.check(redirectURI: redirectURI, for: client) } catch { throw .page(error) }

        let responseTypes = Set((values["response_type"] ?? "").split(separator: " ").map(String.init))
        let scopes = (values["scope"] ?? "").split(separator: " ").map(String.init)
        let state = values["state"]
        var mode: ResponseMode = .query
        if let text = values["response_mode"] {
            guard let m = ResponseMode(rawValue: text) else {
                throw .page(.invalidRequest("response_mode \(text) is not one of query, fragment, form_post"))
            }
            mode = m
        }
        let wantsIDToken: Bool
        switch provider {
        case .google:
            if values["response_mode"] == nil { mode = .query }
            guard responseTypes == ["code"] else {
                throw .redirect(.unsupportedResponseType("response_type must be code for the authorization-code flow (got \(values["response_type"] ?? "nothing"))"),
                                to: redirectURI, mode: mode, state: state)
            }
            wantsIDToken = false
            guard !scopes.isEmpty else {
                throw .redirect(.invalidRequest("Missing required parameter: scope"), to: redirectURI, mode: mode, state: state)
            }
        case .apple:
            guard responseTypes == ["code"] || responseTypes == ["code", "id_token"] else {
                throw .page(.unsupportedResponseType("response_type must be code or \"code id_token\" (got \(values["response_type"] ?? "nothing"))"))
            }
            wantsIDToken = responseTypes.contains("id_token")
            if values["response_mode"] == nil && wantsIDToken { mode = .fragment }
            let unknown = scopes.filter { !["name", "email", "openid"].contains($0) }
            guard unknown.isEmpty else {
                throw .page(.invalidScope("scope \(unknown.joined(separator: " ")) is not supported; Apple knows name and email"))
            }
            if scopes.contains(where: { $0 != "openid" }) && mode != .formPost {
                throw .page(.invalidRequest("response_mode must be form_post when name or email scope is requested, as Apple requires"))
            }
            if wantsIDToken && mode == .query {
                throw .page(.invalidRequest("response_mode query cannot carry an id_token; use fragment or form_post"))
            }
        }
        var method: PKCE.Method?
        if let challenge = values["code_challenge"] {
            let name = values["code_challenge_method"] ?? "plain"
            guard let m = PKCE.Method(rawValue: name) else {
                throw .redirect(.invalidRequest("code_challenge_method \(name) is not supported; use S256 or plain"),
                                to: redirectURI, mode: mode, state: state)
            }
            guard PKCE.isWellFormed(challenge) else {
                throw .redirect(.invalidRequest("code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~"),
                                to: redirectURI, mode: mode, state: state)
            }
            method = m
        } else if values["code_challenge_method"] != nil {
            throw .redirect(.invalidRequest("code_challenge_method without code_challenge"), to: redirectURI, mode: mode, state: state)
        }
        let prompt = Set((values["prompt"] ?? "").split(separator: " ").map(String.init))
        let unknownPrompt = prompt.subtracting(["none", "consent", "select_account", "login"])
        if !unknownPrompt.isEmpty || (prompt.contains("none") && prompt.count > 1) {
            throw .redirect(.invalidRequest("prompt must be none alone, or any of consent, select_account"),
                            to: redirectURI, mode: mode, state: state)
        }
        if let accessType = values["access_type"], accessType != "online" && accessType != "offline" {
            throw .redirect(.invalidRequest("access_type must be online or offline"), to: redirectURI, mode: mode, state: state)
        }
        return AuthorizeRequest(provider: provider, clientID: clientID, redirectURI: redirectURI, wantsIDToken: wantsIDToken,
                                responseMode: mode, scopes: scopes, state: state, nonce: values["nonce"],
                                codeChallenge: values["code_challenge"], codeChallengeMethod: method,
                                loginHint: values["login_hint"].flatMap { $0.isEmpty ? nil : $0 }, hd: values["hd"],
                                prompt: prompt, offline: values["access_type"] == "offline",
                                includeGrantedScopes: values["include_granted_scopes"] == "true", parameters: kept)
    }

    /// `scheme:rest` with an RFC 3986 scheme (http, https, or an app's own such as com.example.app).
    static func isAbsoluteURI(_ s: String) -> Bool {
        guard let colon = s.firstIndex(of: ":"), colon != s.startIndex else { return false }
        let scheme = s[..<colon]
        func isLetter(_ c: Unicode.Scalar) -> Bool { (c.value >= 0x41 && c.value <= 0x5A) || (c.value >= 0x61 && c.value <= 0x7A) }
        func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }
        guard let first = scheme.unicodeScalars.first, isLetter(first) else { return false }
        guard scheme.unicodeScalars.allSatisfy({ isLetter($0) || isDigit($0) || "+-.".unicodeScalars.contains($0) }) else { return false }
        let rest = s[s.index(after: colon)...]
        guard !rest.isEmpty else { return false }
        if scheme.lowercased() == "http" || scheme.lowercased() == "https" {
            guard rest.hasPrefix("//"), rest.count > 2 else { return false }
        }
        return s.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
    }
}
