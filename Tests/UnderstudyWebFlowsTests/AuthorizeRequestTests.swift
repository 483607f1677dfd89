import Testing
@testable import UnderstudyWebFlows

@Suite struct AuthorizeRequestTests {
    func parse(_ pairs: [(String, String)], _ provider: FlowProvider, clients: ClientRegistry = ClientRegistry()) throws(AuthorizeFailure) -> AuthorizeRequest {
        try AuthorizeRequest.parse(pairs.map { (name: $0.0, value: $0.1) }, provider: provider, clients: clients)
    }

    let google: [(String, String)] = [("client_id", "web"), ("redirect_uri", "https://app.example.com/cb"), ("response_type", "code"),
                                      ("scope", "openid email profile"), ("state", "s1"), ("code_challenge", String(repeating: "c", count: 43)),
                                      ("code_challenge_method", "S256"), ("access_type", "offline"), ("prompt", "consent")]

    @Test func aGoogleRequestIsRead() throws {
        let r = try parse(google, .google)
        #expect(r.clientID == "web" && r.responseMode == .query && r.offline && r.prompt == ["consent"])
        #expect(r.codeChallengeMethod == .s256 && r.scopes == ["openid", "email", "profile"])
        #expect(r.parameters.count == google.count)
    }

    @Test func faultsBeforeATrustedRedirectGoToAPageAndLaterOnesRedirect() {
        func failure(_ pairs: [(String, String)], _ provider: FlowProvider, clients: ClientRegistry = ClientRegistry()) -> AuthorizeFailure? {
            do { _ = try parse(pairs, provider, clients: clients); return nil } catch { return error }
        }
        let noClient = failure(google.filter { $0.0 != "client_id" }, .google)
        #expect(noClient?.redirect == nil && noClient?.error.code == "invalid_request")
        let badRedirect = failure(google.map { $0.0 == "redirect_uri" ? ($0.0, "/relative") : $0 }, .google)
        #expect(badRedirect?.redirect == nil)
        let token = failure(google.map { $0.0 == "response_type" ? ($0.0, "token") : $0 }, .google)
        #expect(token?.error.code == "unsupported_response_type" && token?.redirect?.state == "s1")
        let method = failure(google.map { $0.0 == "code_challenge_method" ? ($0.0, "S512") : $0 }, .google)
        #expect(method?.error.code == "invalid_request" && method?.redirect != nil)
        let twice = failure(google + [("state", "again")], .google)
        #expect(twice?.redirect == nil)
        let registered = ClientRegistry([OAuthClient(provider: .google, clientID: "web", redirectURIs: ["https://app.example.com/other"])])
        #expect(failure(google, .google, clients: registered)?.error.code == "redirect_uri_mismatch")
        let unknown = ClientRegistry([OAuthClient(provider: .google, clientID: "someone-else")])
        #expect(failure(google, .google, clients: unknown)?.error.code == "invalid_client")
        // A configured Google client does not close Apple's door.
        #expect(failure([("client_id", "x"), ("redirect_uri", "https://a.example/cb"), ("response_type", "code")], .apple, clients: unknown) == nil)
    }

    @Test func appleRequiresFormPostForAnyScopeAndNoQueryForAnIDToken() throws {
        let base: [(String, String)] = [("client_id", "com.example.web"), ("redirect_uri", "https://app.example.com/cb")]
        let plain = try parse(base + [("response_type", "code")], .apple)
        #expect(plain.responseMode == .query && !plain.wantsIDToken)
        let hybrid = try parse(base + [("response_type", "code id_token"), ("response_mode", "form_post"), ("scope", "name email")], .apple)
        #expect(hybrid.wantsIDToken && hybrid.responseMode == .formPost)
        #expect(try parse(base + [("response_type", "code id_token")], .apple).responseMode == .fragment)
        #expect(throws: AuthorizeFailure.self) { try parse(base + [("response_type", "code"), ("scope", "email")], .apple) }
        #expect(throws: AuthorizeFailure.self) {
            try parse(base + [("response_type", "code"), ("scope", "email"), ("response_mode", "query")], .apple)
        }
        #expect(throws: AuthorizeFailure.self) { try parse(base + [("response_type", "code id_token"), ("response_mode", "query")], .apple) }
        #expect(throws: AuthorizeFailure.self) { try parse(base + [("response_type", "token")], .apple) }
    }
}
