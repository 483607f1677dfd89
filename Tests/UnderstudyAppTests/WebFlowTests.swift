#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Testing
import UnderstudyHTTP
import UnderstudyIO
import UnderstudyTLS
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyTestSupport
import UnderstudyWebFlows
@testable import UnderstudyApp
@testable import UnderstudyGrants

/// The web sign-in flows end to end over real TCP: authorize, the sign-in page, token, userinfo,
/// tokeninfo, refresh and revoke, for both providers.
@Suite(.serialized) struct WebFlowTests {
    static func form(_ pairs: [(String, String)]) -> [UInt8] {
        Array(pairs.map { URLEncoding.queryComponent($0.0) + "=" + URLEncoding.queryComponent($0.1) }.joined(separator: "&").utf8)
    }

    static func query(_ pairs: [(String, String)]) -> String {
        pairs.map { URLEncoding.queryComponent($0.0) + "=" + URLEncoding.queryComponent($0.1) }.joined(separator: "&")
    }

    /// The parameters of a Location's query or fragment.
    static func parameters(_ location: String?, after separator: Character) -> [String: String] {
        guard let location, let mark = location.firstIndex(of: separator) else { return [:] }
        var out: [String: String] = [:]
        for (k, v) in URLEncoding.formDecoded(Array(location[location.index(after: mark)...].utf8)) { out[k] = v }
        return out
    }

    /// The hidden inputs of an HTML form (the values are escaped as the page writes them).
    static func hiddenInputs(_ html: String) -> [String: String] {
        func value(of attribute: String, in tag: Substring) -> String? {
            let marker = Array((attribute + "=\"").utf8)
            let bytes = Array(tag.utf8)
            guard bytes.count >= marker.count else { return nil }
            for i in 0...(bytes.count - marker.count) where Array(bytes[i..<(i + marker.count)]) == marker {
                let start = i + marker.count
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return unescape(String(decoding: bytes[start..<end], as: UTF8.self))
            }
            return nil
        }
        var out: [String: String] = [:]
        for piece in html.split(separator: "<input type=\"hidden\" ").dropFirst() {
            let tag = piece.prefix { $0 != ">" }
            if let name = value(of: "name", in: tag), let v = value(of: "value", in: tag) { out[name] = v }
        }
        return out
    }

    static func unescape(_ s: String) -> String {
        var out = ""
        var rest = Substring(s)
        let entities = [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
        outer: while let c = rest.first {
            if c == "&" {
                for (e, r) in entities where rest.hasPrefix(e) {
                    out += r
                    rest = rest.dropFirst(e.count)
                    continue outer
                }
            }
            out.append(c)
            rest = rest.dropFirst()
        }
        return out
    }

    @Test func googleCodeFlowWithPKCERefreshAndRevoke() throws {
        let (app, client) = try ApplicationTests.start(["--auto-approve": "true"])
        defer { app.shutdown() }
        let verifier = String(repeating: "v", count: 50)
        let challenge = PKCE.challenge(for: verifier, method: .s256)
        let redirect = "http://127.0.0.1:9/callback"
        let authorize = try client.get("/google/o/oauth2/v2/auth?" + Self.query([
            ("client_id", "web-client"), ("redirect_uri", redirect), ("response_type", "code"), ("scope", "openid email profile"),
            ("state", "st-1"), ("nonce", "n-1"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
            ("access_type", "offline"), ("login_hint", "carol.jones@example.com"), ("include_granted_scopes", "true")]))
        #expect(authorize.status == 302)
        let location = try #require(authorize.header("Location"))
        #expect(location.hasPrefix(redirect + "?"))
        let callback = Self.parameters(location, after: "?")
        #expect(callback["state"] == "st-1")
        let code = try #require(callback["code"])

        // PKCE: a wrong verifier is refused (and uses the code up, as a replay would).
        let exchangeForm: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                                                ("client_id", "web-client"), ("client_secret", "anything"), ("code_verifier", verifier)]
        let token = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                       body: Self.form(exchangeForm))
        #expect(token.status == 200)
        let body = try #require(token.json)
        let access = try #require(body["access_token"]?.stringValue)
        let refresh = try #require(body["refresh_token"]?.stringValue)
        #expect(body["token_type"] == "Bearer" && body["expires_in"] == 3599)
        let idToken = try #require(body["id_token"]?.stringValue)
        let claims = try #require(try JWS.decode(idToken).claims)
        #expect(claims["aud"] == "web-client" && claims["azp"] == "web-client" && claims["nonce"] == "n-1")
        #expect(claims["email"] == "carol.jones@example.com" && claims["given_name"] == "Carol")
        #expect(claims["at_hash"] == .string(TokenHash.of(access)))

        let replay = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Self.form(exchangeForm))
        #expect(replay.status == 400 && replay.json?["error"] == "invalid_grant")

        // The replay revoked the first exchange's tokens, so sign in again for the rest.
        let again = try client.get("/google/o/oauth2/v2/auth?" + Self.query([
            ("client_id", "web-client"), ("redirect_uri", redirect), ("response_type", "code"), ("scope", "openid email profile"),
            ("code_challenge", verifier), ("code_challenge_method", "plain"), ("access_type", "offline"),
            ("login_hint", "carol.jones@example.com")]))
        let code2 = try #require(Self.parameters(again.header("Location"), after: "?")["code"])
        let wrongVerifier = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                               body: Self.form([("grant_type", "authorization_code"), ("code", code2), ("redirect_uri", redirect),
                                                                ("client_id", "web-client"), ("code_verifier", verifier + "x")]))
        #expect(wrongVerifier.status == 400 && wrongVerifier.json?["error"] == "invalid_grant")

        let again3 = try client.get("/google/o/oauth2/v2/auth?" + Self.query([
            ("client_id", "web-client"), ("redirect_uri", redirect), ("response_type", "code"), ("scope", "openid email profile"),
            ("access_type", "offline"), ("login_hint", "carol.jones@example.com")]))
        let code3 = try #require(Self.parameters(again3.header("Location"), after: "?")["code"])
        let basic = "Basic " + Base64.encode(Array("web-client:secret".utf8))
        let third = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", basic)],
                                       body: Self.form([("grant_type", "authorization_code"), ("code", code3), ("redirect_uri", redirect)]))
        #expect(third.status == 200)
        // A refresh token comes again only with prompt=consent.
        #expect(third.json?["refresh_token"] == nil)
        let access3 = try #require(third.json?["access_token"]?.stringValue)

        let info = try client.request("GET", "/google/v1/userinfo", headers: [("Authorization", "Bearer " + access3)])
        #expect(info.status == 200 && info.json?["email"] == "carol.jones@example.com" && info.json?["sub"] == claims["sub"])
        let v3 = try client.request("GET", "/google/oauth2/v3/userinfo", headers: [("Authorization", "Bearer " + access3)])
        #expect(v3.status == 200 && v3.json?["given_name"] == "Carol")
        let tokenInfo = try client.get("/google/tokeninfo?access_token=" + URLEncoding.queryComponent(access3))
        #expect(tokenInfo.status == 200 && tokenInfo.json?["aud"] == "web-client" && tokenInfo.json?["email_verified"] == "true")

        let refreshed = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                           body: Self.form([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "web-client")]))
        // The first grant's refresh token was revoked by the replay above.
        #expect(refreshed.status == 400 && refreshed.json?["error"] == "invalid_grant")

        let revoke = try client.request("POST", "/google/revoke", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Self.form([("token", access3)]))
        #expect(revoke.status == 200)
        let after = try client.request("GET", "/google/v1/userinfo", headers: [("Authorization", "Bearer " + access3)])
        #expect(after.status == 401 && after.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try client.get("/google/v1/userinfo").status == 401)
    }

    @Test func googleRefreshAndPromptNone() throws {
        let (app, client) = try ApplicationTests.start(["--auto-approve": "true"])
        defer { app.shutdown() }
        let redirect = "https://app.example.com/cb"
        func authorize(_ extra: [(String, String)]) throws -> [String: String] {
            let r = try client.get("/google/o/oauth2/v2/auth?" + Self.query([("client_id", "c"), ("redirect_uri", redirect),
                                                                            ("response_type", "code"), ("scope", "openid email"), ("state", "s")] + extra))
            return Self.parameters(r.header("Location"), after: "?")
        }
        #expect(try authorize([("prompt", "none")])["error"] == "login_required")
        #expect(try authorize([("prompt", "none"), ("login_hint", "dave@example.com")])["error"] == "consent_required")
        let code = try #require(try authorize([("access_type", "offline"), ("login_hint", "dave@example.com")])["code"])
        let token = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                       body: Self.form([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("client_id", "c")]))
        let refresh = try #require(token.json?["refresh_token"]?.stringValue)
        let refreshed = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                           body: Self.form([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "c")]))
        #expect(refreshed.status == 200 && refreshed.json?["id_token"] != nil && refreshed.json?["refresh_token"] == nil)
        #expect(try authorize([("prompt", "none"), ("login_hint", "dave@example.com")])["code"] != nil)
        let mismatch = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                          body: Self.form([("grant_type", "authorization_code"), ("code", try #require(try authorize([("login_hint", "dave@example.com")])["code"])),
                                                           ("redirect_uri", redirect + "/other"), ("client_id", "c")]))
        #expect(mismatch.status == 400 && mismatch.json?["error"] == "redirect_uri_mismatch")
    }

    @Test func afterAKeyRotationTheFlowsSignWithTheNewKey() throws {
        let (app, client) = try ApplicationTests.start(["--auto-approve": "true"])
        defer { app.shutdown() }
        let rotated = try client.request("POST", "/api/keys/google/rotate")
        #expect(rotated.status == 200)
        let active = try #require(rotated.json?["active"]?.stringValue)
        let redirect = "https://app.example.com/cb"
        let r = try client.get("/google/o/oauth2/v2/auth?" + Self.query([("client_id", "c"), ("redirect_uri", redirect),
                                                                        ("response_type", "code"), ("scope", "openid email"),
                                                                        ("login_hint", "erin@example.com")]))
        let code = try #require(Self.parameters(r.header("Location"), after: "?")["code"])
        let token = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                       body: Self.form([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("client_id", "c")]))
        let idToken = try #require(token.json?["id_token"]?.stringValue)
        let header = try JSONValue.parse(try #require(Base64URL.decode(String(idToken.split(separator: ".")[0]))))
        #expect(header["kid"]?.stringValue == active)
    }

    static func appleSecret(_ key: JWS.ES256.PrivateKey, clientID: String) throws -> String {
        let now = Int64(time(nil))
        return try JWS.sign(header: ["alg": "ES256", "kid": "KEY1234567"],
                            claims: ["iss": "TEAM123456", "iat": .integer(now), "exp": .integer(now + 600),
                                     "aud": "https://appleid.apple.com", "sub": .string(clientID)], key: .es256(key))
    }

    @Test func appleFormPostThroughTheSignInPage() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        let redirect = "https://app.example.com/apple/callback"
        let target = "/apple/auth/authorize?" + Self.query([
            ("client_id", "com.example.web"), ("redirect_uri", redirect), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", "name email"), ("state", "a-state"), ("nonce", "a-nonce")])
        let page = try client.get(target)
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        let cookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let hidden = Self.hiddenInputs(page.text)
        let csrf = try #require(hidden[SignInPage.Field.csrf])
        #expect(page.text.contains("alice@example.com"))

        func submit(_ fields: [(String, String)], cookie: String?) throws -> SimpleHTTPClient.Response {
            var pairs = hidden.filter { $0.key != SignInPage.Field.csrf }.map { ($0.key, $0.value) }
            pairs += fields
            var headers = [("Content-Type", "application/x-www-form-urlencoded")]
            if let cookie { headers.append(("Cookie", cookie)) }
            return try client.request("POST", "/apple/auth/authorize", headers: headers, body: Self.form(pairs))
        }
        let forged = try submit([(SignInPage.Field.csrf, csrf), (SignInPage.Field.action, "continue")], cookie: nil)
        #expect(forged.status == 403)

        let done = try submit([(SignInPage.Field.csrf, csrf), (SignInPage.Field.action, "continue"),
                               (SignInPage.Field.email, "erin@example.com"), (SignInPage.Field.givenName, "Erin"),
                               (SignInPage.Field.familyName, "Doe"), (SignInPage.Field.hideEmail, "1")], cookie: cookie)
        #expect(done.status == 200)
        #expect(done.text.contains("action=\"\(redirect)\""))
        let posted = Self.hiddenInputs(done.text)
        #expect(posted["state"] == "a-state")
        let code = try #require(posted["code"])
        let user = try #require(posted["user"].flatMap { try? JSONValue.parse($0) })
        #expect(user["name"]?["firstName"] == "Erin" && user["name"]?["lastName"] == "Doe")
        let relay = try #require(user["email"]?.stringValue)
        #expect(relay.hasSuffix("@privaterelay.appleid.com"))
        let hybrid = try #require(posted["id_token"].flatMap { try JWS.decode($0).claims })
        #expect(hybrid["c_hash"] == .string(TokenHash.of(code)) && hybrid["nonce"] == "a-nonce")

        let key = try JWS.ES256.PrivateKey()
        let exchange = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                        ("client_id", "com.example.web"), ("client_secret", try Self.appleSecret(key, clientID: "com.example.web"))]
        let token = try client.request("POST", "/apple/auth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                       body: Self.form(exchange))
        #expect(token.status == 200)
        let idToken = try #require(token.json?["id_token"]?.stringValue)
        let claims = try #require(try JWS.decode(idToken).claims)
        #expect(claims["email"] == .string(relay) && claims["is_private_email"] == "true" && claims["aud"] == "com.example.web")
        #expect(claims["at_hash"] == .string(TokenHash.of(token.json?["access_token"]?.stringValue ?? "")))
        let refresh = try #require(token.json?["refresh_token"]?.stringValue)
        let reused = try client.request("POST", "/apple/auth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Self.form(exchange))
        #expect(reused.status == 400 && reused.json?["error"] == "invalid_grant")
        let badSecret = try client.request("POST", "/apple/auth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                           body: Self.form([("grant_type", "refresh_token"), ("refresh_token", refresh),
                                                            ("client_id", "com.example.web"), ("client_secret", "nope")]))
        #expect(badSecret.status == 400 && badSecret.json?["error"] == "invalid_client")

        // The second consent of the same identity carries no user; the relay address is stable.
        let second = try submit([(SignInPage.Field.csrf, csrf), (SignInPage.Field.action, "continue"),
                                 (SignInPage.Field.email, "erin@example.com"), (SignInPage.Field.hideEmail, "1")], cookie: cookie)
        let secondPosted = Self.hiddenInputs(second.text)
        #expect(secondPosted["code"] != nil && secondPosted["user"] == nil)
        let secondClaims = try #require(secondPosted["id_token"].flatMap { try JWS.decode($0).claims })
        #expect(secondClaims["email"] == .string(relay))

        let cancel = try submit([(SignInPage.Field.csrf, csrf), (SignInPage.Field.action, "cancel")], cookie: cookie)
        let cancelled = Self.hiddenInputs(cancel.text)
        #expect(cancelled["error"] == "user_cancelled_authorize" && cancelled["state"] == "a-state")

        let revoke = try client.request("POST", "/apple/auth/revoke", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Self.form([("client_id", "com.example.web"), ("token", refresh), ("token_type_hint", "refresh_token"),
                                                         ("client_secret", try Self.appleSecret(key, clientID: "com.example.web"))]))
        #expect(revoke.status == 200)
        let afterRevoke = try client.request("POST", "/apple/auth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                             body: Self.form([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "com.example.web"),
                                                              ("client_secret", try Self.appleSecret(key, clientID: "com.example.web"))]))
        #expect(afterRevoke.status == 400 && afterRevoke.json?["error"] == "invalid_grant")
    }

    @Test func appleScopeWithoutFormPostAndGoogleCancel() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        let apple = try client.get("/apple/auth/authorize?" + Self.query([("client_id", "x"), ("redirect_uri", "https://a.example/cb"),
                                                                         ("response_type", "code"), ("scope", "email")]))
        #expect(apple.status == 400 && apple.text.contains("form_post"))
        let page = try client.get("/google/o/oauth2/v2/auth?" + Self.query([("client_id", "x"), ("redirect_uri", "https://a.example/cb"),
                                                                           ("response_type", "code"), ("scope", "openid"), ("state", "z")]))
        let cookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        var pairs = Self.hiddenInputs(page.text).map { ($0.key, $0.value) }
        pairs.append((SignInPage.Field.action, "cancel"))
        let cancel = try client.request("POST", "/google/o/oauth2/v2/auth", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie)],
                                        body: Self.form(pairs))
        #expect(cancel.status == 302)
        let back = Self.parameters(cancel.header("Location"), after: "?")
        #expect(back["error"] == "access_denied" && back["state"] == "z")
    }

    @Test func configuredClientsAreEnforced() throws {
        let folder = try TemporaryFolder(prefix: "understudy-clients")
        defer { folder.remove() }
        let key = try JWS.ES256.PrivateKey()
        let config: JSONValue = ["clients": [
            ["provider": "google", "clientId": "known", "clientSecret": "s3cret", "redirectUris": ["https://a.example/cb"]],
            ["provider": "apple", "clientId": "com.example.web", "teamId": "TEAM123456", "keyId": "KEY1234567",
             "publicKey": .string(key.publicKey.pemRepresentation)],
        ]]
        let path = folder.path + "/config.json"
        try FileIO.write(config.serializedBytes(), to: path)
        let configuration = try Configuration.load(configFile: path, environment: [:], flags: [
            "--http": "127.0.0.1:0", "--smtp": "127.0.0.1:0", "--https": "127.0.0.1:0", "--ca": ApplicationTests.caFolder.path + "/ca"])
        let app = try Application(configuration: configuration)
        defer { app.shutdown() }
        let client = try SimpleHTTPClient(server: app.httpAddresses[0])
        let unknown = try client.get("/google/o/oauth2/v2/auth?" + Self.query([("client_id", "other"), ("redirect_uri", "https://a.example/cb"),
                                                                              ("response_type", "code"), ("scope", "openid")]))
        #expect(unknown.status == 401 || unknown.status == 400)
        #expect(unknown.text.contains("invalid_client"))
        let wrongRedirect = try client.get("/google/o/oauth2/v2/auth?" + Self.query([("client_id", "known"), ("redirect_uri", "https://evil.example/cb"),
                                                                                    ("response_type", "code"), ("scope", "openid")]))
        #expect(wrongRedirect.status == 400 && wrongRedirect.text.contains("redirect_uri_mismatch"))
        let badSecret = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                           body: Self.form([("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", "https://a.example/cb"),
                                                            ("client_id", "known"), ("client_secret", "wrong")]))
        #expect(badSecret.status == 401 && badSecret.json?["error"] == "invalid_client")
        let otherKey = try JWS.ES256.PrivateKey()
        let forged = try client.request("POST", "/apple/auth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Self.form([("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", "https://a.example/cb"),
                                                         ("client_id", "com.example.web"), ("client_secret", try Self.appleSecret(otherKey, clientID: "com.example.web"))]))
        #expect(forged.status == 400 && forged.json?["error"] == "invalid_client")
        let signed = try client.request("POST", "/apple/auth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Self.form([("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", "https://a.example/cb"),
                                                         ("client_id", "com.example.web"), ("client_secret", try Self.appleSecret(key, clientID: "com.example.web"))]))
        // The secret passes; the made-up code does not.
        #expect(signed.status == 400 && signed.json?["error"] == "invalid_grant")
    }

    @Test func loginDrivesAFlowFromTheCommandLine() throws {
        let (app, _) = try ApplicationTests.start()
        defer { app.shutdown() }
        let url = "http://" + app.httpAddresses[0]
        let apple = runCLI(["login", "apple", "--server", url, "--client-id", "com.example.web",
                            "--redirect-uri", "https://app.example.com/cb", "--email", "frank@example.com", "--state", "st"])
        #expect(apple.status == 0, "\(apple.err)")
        let lines = apple.out.split(separator: "\n").map(String.init)
        #expect(lines.contains("state=st") && lines.contains { $0.hasPrefix("code=c") } && lines.contains { $0.hasPrefix("id_token=ey") })
        #expect(lines.contains { $0.hasPrefix("user={") && $0.contains("frank@example.com") })
        #expect(apple.err.contains("form_post"))
        let google = runCLI(["login", "google", "--server", url, "--client-id", "web", "--redirect-uri", "http://localhost:3000/cb",
                             "--pkce", "--json"])
        #expect(google.status == 0, "\(google.err)")
        let json = try #require(try? JSONValue.parse(Array(google.out.utf8)))
        #expect(json["code"]?.stringValue?.hasPrefix("4/0") == true && json["code_verifier"] != nil)
        #expect(runCLI(["login", "google", "--server", url]).status == 64)
        let refused = runCLI(["login", "apple", "--server", url, "--client-id", "x", "--redirect-uri", "https://a.example/cb",
                              "--response-mode", "query"])
        #expect(refused.status == 1 && refused.err.contains("form_post"))
    }

    /// A code given before a restart is redeemed after it, with `--data`; auto-approve without a
    /// login_hint signs in the first configured identity.
    @Test func grantsSurviveARestartWithData() throws {
        let folder = try TemporaryFolder(prefix: "understudy-grants-data")
        defer { folder.remove() }
        let data = folder.path + "/store.sqlite"
        let redirect = "https://app.example.com/cb"
        let code: String
        do {
            let (app, client) = try ApplicationTests.start(["--auto-approve": "true", "--data": data])
            let r = try client.get("/google/o/oauth2/v2/auth?" + Self.query([("client_id", "c"), ("redirect_uri", redirect),
                                                                            ("response_type", "code"), ("scope", "openid email profile")]))
            app.shutdown()
            code = try #require(Self.parameters(r.header("Location"), after: "?")["code"])
        }
        let (app, client) = try ApplicationTests.start(["--data": data])
        defer { app.shutdown() }
        let token = try client.request("POST", "/google/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                       body: Self.form([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("client_id", "c")]))
        #expect(token.status == 200)
        let access = try #require(token.json?["access_token"]?.stringValue)
        let v1 = try client.request("GET", "/google/oauth2/v1/userinfo", headers: [("Authorization", "Bearer " + access)])
        #expect(v1.json?["email"] == "alice@example.com" && v1.json?["verified_email"] == true && v1.json?["id"] != nil)
        for path in ["/google/oauth2/v2/userinfo", "/google/userinfo/v2/me"] {
            let r = try client.request("GET", path, headers: [("Authorization", "Bearer " + access)])
            #expect(r.status == 200 && r.json?["id"] == v1.json?["id"], "\(path)")
        }
        // The sign-in page now lists alice among the recent identities too (once: she is configured).
        let page = try client.get("/google/o/oauth2/v2/auth?" + Self.query([("client_id", "c"), ("redirect_uri", redirect),
                                                                           ("response_type", "code"), ("scope", "openid")]))
        #expect(page.text.split(separator: "value=\"alice@example.com\"", omittingEmptySubsequences: false).count == 2)
    }

    /// Token requests wait on SQLite on the worker pool: while the grants' writer is held, the
    /// loop that took the request goes on answering.
    @Test func aStuckGrantWriteDelaysNoOtherRequest() throws {
        let (app, client) = try ApplicationTests.start(["--threads": "1"])
        defer { app.shutdown() }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? app.grants.pool.write { _ in holding.signal(); release.wait() }
            held.signal()
        }
        holding.wait()
        defer { release.signal(); held.wait() }
        let httpPort = Int(app.httpAddresses[0].split(separator: ":").last ?? "") ?? 0
        let stuck = try BlockingSocket(host: "127.0.0.1", port: httpPort, timeout: 10)
        defer { stuck.close() }
        let body = "grant_type=authorization_code&code=x&redirect_uri=https%3A%2F%2Fa.example%2Fcb&client_id=c"
        try stuck.send("POST /google/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                       + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let health = try client.get("/healthz", readTimeout: 5)
        #expect(health.status == 200)
        #expect(try client.get("/apple/auth/keys", readTimeout: 5).status == 200)
        release.signal()
        let answer = try #require(try stuck.readLine())
        #expect(answer.hasPrefix("HTTP/1.1 400"))
    }

    /// Every endpoint each discovery document names answers something other than 404, on
    /// localhost (path-routed) and as each real host (by Host header).
    @Test func everyAdvertisedEndpointExistsOnEveryHost() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        let keys = ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "revocation_endpoint",
                    "device_authorization_endpoint", "jwks_uri"]
        var checked = 0
        func check(_ discovery: JSONValue?) throws {
            let document = try #require(discovery?.objectValue)
            for key in keys {
                guard let url = document[key]?.stringValue else { continue }
                // Split https://host/path into the Host and the path.
                let rest = url.drop { $0 != "/" }.dropFirst(2)
                let host = String(rest.prefix { $0 != "/" })
                let path = String(rest.drop { $0 != "/" })
                let headers = [("Host", host)]
                for method in ["GET", "POST"] {
                    let r = try client.request(method, path, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")])
                    #expect(r.status != 404, "\(method) \(url) (\(key)) answered 404")
                    checked += 1
                }
            }
        }
        try check(client.get("/apple/.well-known/openid-configuration").json)
        try check(client.get("/google/.well-known/openid-configuration").json)
        for host in VirtualHosts.hosts {
            let discovery = try client.request("GET", "/.well-known/openid-configuration", headers: [("Host", host)])
            try check(discovery.json)
        }
        #expect(checked > 40)
    }

    /// Over the HTTPS listener, as each Google and Apple host by SNI: every endpoint its discovery
    /// names on that host answers (not 404), and the sign-in page's CSRF cookie is Secure there.
    @Test func theEndpointsAnswerOverTLSAsTheRealHosts() throws {
        let (app, _) = try ApplicationTests.start()
        defer { app.shutdown() }
        let ca = try #require(app.certificateAuthority)
        let address = try #require(app.httpsAddress.flatMap(ListenAddress.init))
        let socketAddress = try SocketAddress(host: address.host, port: address.port)
        let context = try TLSContext(configuration: .client(trustRoots: [ca.certificate]))
        func get(_ host: String, _ target: String) throws -> String {
            let client = try TLSTestClient(socketAddress, context: context, serverName: host)
            #expect(client.handshake().isComplete, "handshake as \(host)")
            return try client.request("GET", target, host: host)
        }
        var checked = 0
        for issuerHost in ["accounts.google.com", "appleid.apple.com"] {
            let text = try get(issuerHost, "/.well-known/openid-configuration")
            let body = text.split(separator: "\r\n\r\n", maxSplits: 1).last.map(String.init) ?? ""
            let document = try #require(try? JSONValue.parse(Array(body.utf8)))
            for key in ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "revocation_endpoint",
                        "device_authorization_endpoint", "jwks_uri"] {
                guard let url = document[key]?.stringValue else { continue }
                let rest = url.dropFirst("https://".count)
                let host = String(rest.prefix { $0 != "/" })
                let response = try get(host, String(rest.drop { $0 != "/" }))
                #expect(!response.hasPrefix("HTTP/1.1 404"), "\(url): \(response.prefix(120))")
                checked += 1
            }
        }
        #expect(checked == 10)
        let page = try get("accounts.google.com", "/o/oauth2/v2/auth?client_id=c&redirect_uri=https%3A%2F%2Fa.example%2Fcb&response_type=code&scope=openid")
        #expect(page.hasPrefix("HTTP/1.1 200"))
        #expect(page.contains("understudy_csrf=") && page.contains("; Secure"))
    }
}
