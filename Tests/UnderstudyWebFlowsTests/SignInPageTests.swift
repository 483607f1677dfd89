import Testing
@testable import UnderstudyWebFlows

@Suite struct SignInPageTests {
    @Test func everyValueIsEscapedAndThePageIsLockedDown() throws {
        let hostile = "\"><script>alert(1)</script>"
        let request = try AuthorizeRequest.parse([(name: "client_id", value: "web" + hostile), (name: "redirect_uri", value: "https://app.example.com/cb"),
                                                  (name: "response_type", value: "code"), (name: "scope", value: "openid"),
                                                  (name: "state", value: hostile)],
                                                 provider: .google, clients: ClientRegistry())
        let page = SignInPage.render(request, choices: [.init(email: "a\(hostile)@example.com", givenName: hostile)],
                                     csrf: "tok", action: "auth")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(!html.contains("<script>"))
        #expect(html.contains("&quot;&gt;&lt;script&gt;"))
        let csp = try #require(page.headers["Content-Security-Policy"])
        #expect(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"))
        #expect(csp.contains("form-action 'self' https://app.example.com"))
        #expect(page.headers["X-Content-Type-Options"] == "nosniff")
        #expect(!html.lowercased().contains("apple logo") && html.contains("UNDERSTUDY"))
    }

    @Test func formPostCarriesTheParametersAndOnlyItsOwnScript() {
        let response = AuthorizationResponse.make(redirectURI: "https://app.example.com/cb", mode: .formPost,
                                                  [("state", "a&b"), ("code", "c1"), ("user", "{\"email\":\"x\"}"), ("id_token", nil)])
        let html = String(decoding: response.body, as: UTF8.self)
        #expect(html.contains("action=\"https://app.example.com/cb\""))
        #expect(html.contains("name=\"state\" value=\"a&amp;b\""))
        #expect(html.contains("value=\"{&quot;email&quot;:&quot;x&quot;}\""))
        #expect(!html.contains("id_token"))
        #expect(response.headers["Content-Security-Policy"]?.contains("script-src 'sha256-") == true)
    }

    @Test func queryAndFragmentRedirects() {
        let q = AuthorizationResponse.make(redirectURI: "https://a.example/cb?x=1", mode: .query, [("code", "4/0 a"), ("state", "s")])
        #expect(q.status.code == 302 && q.headers["Location"] == "https://a.example/cb?x=1&code=4%2F0%20a&state=s")
        let f = AuthorizationResponse.make(redirectURI: "https://a.example/cb", mode: .fragment, [("code", "c")])
        #expect(f.headers["Location"] == "https://a.example/cb#code=c")
    }
}
