import Testing
import UnderstudyGrants
import UnderstudyTestSupport
import UnderstudyJOSE
import UnderstudyJSON
@testable import UnderstudyApp

/// The whole server in-process on port 0, over real TCP.
@Suite(.serialized) struct ApplicationTests {
    /// One local CA for the whole test process, in a temporary folder.
    static let caFolder = try! TemporaryFolder(prefix: "understudy-app-ca")

    static func start(_ flags: [String: String] = [:]) throws -> (Application, SimpleHTTPClient) {
        // Quiet unless a test asks for the request log: thousands of requests would bury the test output.
        var all = ["--http": "127.0.0.1:0", "--smtp": "127.0.0.1:0", "--https": "127.0.0.1:0", "--ca": caFolder.path + "/ca",
                   "--quiet": "true"]
        all.merge(flags) { $1 }
        let configuration = try Configuration.load(configFile: nil, environment: [:], flags: all)
        let app = try Application(configuration: configuration)
        return (app, try SimpleHTTPClient(server: app.httpAddresses[0]))
    }

    @Test func healthAndProviderEndpoints() throws {
        let (app, client) = try Self.start()
        defer { app.shutdown() }
        let health = try client.get("/healthz")
        #expect(health.status == 200 && health.json == ["status": "ok"])

        let discovery = try client.get("/apple/.well-known/openid-configuration")
        #expect(discovery.json?["jwks_uri"] == .string("http://\(app.httpAddresses[0])/apple/auth/keys"))
        let google = try client.get("/google/.well-known/openid-configuration")
        #expect(google.json?["token_endpoint"] == .string("http://\(app.httpAddresses[0])/google/token"))

        // Apple's key order varies between fetches.
        var orders = Set<[String]>()
        for _ in 0..<40 {
            let keys = try client.get("/apple/auth/keys").json?["keys"]?.arrayValue ?? []
            #expect(keys.count == 3)
            orders.insert(keys.compactMap { $0["kid"]?.stringValue })
        }
        #expect(orders.count > 1)

        let certs = try client.get("/google/oauth2/v1/certs")
        #expect(certs.header("Cache-Control") == "public, max-age=21600, must-revalidate, no-transform")
        #expect(certs.header("Content-Type") == "application/json; charset=UTF-8")
        #expect(certs.header("Expires")?.hasSuffix(" GMT") == true)
        #expect(certs.json?.objectValue?.count == 2)
        #expect(try client.get("/google/oauth2/v3/certs").json?["keys"]?.arrayValue?.count == 2)
    }

    @Test func mintOverHTTPAndTokenInfo() throws {
        let (app, client) = try Self.start()
        defer { app.shutdown() }
        let minted = try client.postJSON("/api/tokens/google", ["email": "bob@example.com", "nonce": "xyz"])
        #expect(minted.status == 200)
        let token = try #require(minted.json?["idToken"]?.stringValue)
        #expect(minted.json?["claims"]?["nonce"] == "xyz")
        #expect(minted.json?["header"]?["alg"] == "RS256")
        let info = try client.get("/google/tokeninfo?id_token=\(token)")
        #expect(info.status == 200)
        #expect(info.json?["email"] == "bob@example.com")
        #expect(info.json?["exp"]?.stringValue != nil)
        let bad = try client.get("/google/tokeninfo?id_token=abc")
        #expect(bad.status == 400 && bad.json == ["error": "invalid_token", "error_description": "Invalid Value"])
    }

    /// 60,000 claim keys once took seconds of a loop thread (a quadratic merge); now the count is
    /// refused before anything is merged or signed.
    @Test func aMintWithTooManyClaimsIsA400NamingTheLimit() throws {
        let (app, client) = try Self.start()
        defer { app.shutdown() }
        let claims = JSONObject((0..<60_000).map { ("c\($0)", JSONValue.integer(Int64($0))) })
        let r = try client.postJSON("/api/tokens/apple", ["claims": .object(claims)])
        #expect(r.status == 400)
        #expect(r.json?["error"] == "invalid_request")
        #expect(r.json?["message"]?.stringValue?.contains("at most 256 extra claims") == true)
        let big = try client.postJSON("/api/tokens/google", ["claims": ["blob": .string(String(repeating: "y", count: 70_000))]])
        #expect(big.status == 400)
        #expect(big.json?["message"]?.stringValue?.contains("65536 bytes") == true)
        #expect(try client.postJSON("/api/tokens/google", ["claims": ["x": 1]]).status == 200)
    }

    @Test func errorsAreJSONProblems() throws {
        let (app, client) = try Self.start()
        defer { app.shutdown() }
        func expectProblem(_ r: SimpleHTTPClient.Response, _ status: Int, _ needle: String) {
            #expect(r.status == status)
            #expect(r.json?.objectValue?.keys.sorted() == ["error", "message"], "\(r.text)")
            #expect(r.json?["message"]?.stringValue?.contains(needle) == true, "\(r.text)")
        }
        expectProblem(try client.postJSON("/api/tokens/apple", ["ttl": "soon"]), 400, "ttl")
        expectProblem(try client.postJSON("/api/tokens/facebook", [:]), 404, "unknown provider")
        expectProblem(try client.request("POST", "/api/tokens/apple", headers: [("Content-Type", "text/plain")], body: Array("x".utf8)), 415, "")
        expectProblem(try client.request("POST", "/api/tokens/apple", headers: [("Content-Type", "application/json")], body: Array("{".utf8)), 400, "")
        expectProblem(try client.get("/nowhere"), 404, "")
        expectProblem(try client.request("DELETE", "/healthz"), 405, "")
    }

    /// Provider paths answer errors as Google and Apple do, `error` + `error_description` (what OAuth
    /// clients read); the admin API keeps `error` + `message`.
    @Test func providerErrorsUseTheOAuthShape() throws {
        let (app, client) = try Self.start()
        defer { app.shutdown() }
        for (r, status, code) in [(try client.get("/google/tokeninfo?id_token=abc"), 400, "invalid_token"),
                                  (try client.get("/google/tokeninfo"), 400, "invalid_token"),
                                  (try client.get("/google/nowhere"), 404, "not_found"),
                                  (try client.get("/apple/auth/nowhere"), 404, "not_found"),
                                  (try client.get("/apple"), 404, "not_found"),
                                  (try client.request("DELETE", "/apple/auth/keys"), 405, "method_not_allowed"),
                                  (try client.request("PUT", "/google/tokeninfo"), 405, "method_not_allowed")] {
            #expect(r.status == status)
            #expect(r.json?.objectValue?.keys.sorted() == ["error", "error_description"], "\(r.text)")
            #expect(r.json?["error"]?.stringValue == code)
            #expect(r.json?["error_description"]?.stringValue?.isEmpty == false)
        }
        for r in [try client.get("/api/nowhere"), try client.get("/googlenowhere"), try client.postJSON("/api/tokens/apple", ["ttl": "x"])] {
            #expect(r.json?.objectValue?.keys.sorted() == ["error", "message"], "\(r.text)")
        }
    }

    /// `--google-issuer`/`--apple-issuer` set to the local URL make discovery's issuer, the URL the
    /// client fetched it under and the tokens' iss agree, as strict OIDC clients require.
    @Test func issuerFlagsMakeDiscoveryAndTokensAgree() throws {
        let google = "http://127.0.0.1:7080/google", apple = "http://127.0.0.1:7080/apple"
        let (app, client) = try Self.start(["--google-issuer": google, "--apple-issuer": apple])
        defer { app.shutdown() }
        for (provider, issuer) in [("google", google), ("apple", apple)] {
            let discovery = try client.get("/\(provider)/.well-known/openid-configuration")
            #expect(discovery.json?["issuer"]?.stringValue == issuer)
            let minted = try client.postJSON("/api/tokens/\(provider)", [:])
            #expect(minted.json?["claims"]?["iss"]?.stringValue == issuer)
            // Offline minting with the same flag agrees too.
            let offline = runCLI(["mint", provider, "--\(provider)-issuer", issuer])
            #expect(try JWS.decode(offline.out.trimmingSpaces()).claims?["iss"]?.stringValue == issuer)
        }
        // Without the flags, the real issuers.
        let (plain, plainClient) = try Self.start()
        defer { plain.shutdown() }
        #expect(try plainClient.get("/google/.well-known/openid-configuration").json?["issuer"] == "https://accounts.google.com")
    }

    /// `mint --server URL` mints through the running server (its keys and issuer); an unreachable
    /// server exits 69.
    @Test func mintThroughTheServer() throws {
        let dir = String(temporaryFile("x", "").dropLast(2)) + "/server-keys"
        #expect(runCLI(["keys", "generate", "--out", dir]).status == 0)
        let (app, _) = try Self.start(["--keys": dir, "--google-issuer": "https://issuer.example"])
        let url = "http://\(app.httpAddresses[0])"
        let r = runCLI(["mint", "google", "--server", url, "--email", "srv@example.com", "--json"])
        #expect(r.status == 0, "\(r.err)")
        let json = try JSONValue.parse(r.out.trimmingSpaces())
        #expect(json["claims"]?["iss"] == "https://issuer.example")
        #expect(json["claims"]?["email"] == "srv@example.com")
        let kid = try #require(json["header"]?["kid"]?.stringValue)
        #expect(FileIO.exists("\(dir)/google/\(kid).pem"))
        #expect(r.err.contains("minted by the server at \(url): google key \(kid), iss https://issuer.example"))
        let bad = runCLI(["mint", "google", "--server", url, "--kid", "nope"])
        #expect(bad.status == 64 && bad.err.contains("kid nope"))
        app.shutdown()
        let gone = runCLI(["mint", "google", "--server", url])
        #expect(gone.status == 69, "\(gone.err)")
        #expect(gone.err.contains("is `understudy serve` running there?"))
    }

    @Test func addressInUseIsAClearError() throws {
        let (app, _) = try Self.start()
        defer { app.shutdown() }
        #expect(throws: StartupError.self) { try Self.start(["--http": app.httpAddresses[0]]) }
        do {
            _ = try Self.start(["--smtp": app.smtpAddress])
            Issue.record("a second server took \(app.smtpAddress)")
        } catch let error as StartupError {
            #expect(error.description.contains("cannot listen for SMTP"))
            #expect(error.description.contains("--smtp"))
        }
    }

    @Test func unusableStoreIsAClearError() throws {
        do {
            _ = try Self.start(["--data": "/nonexistent-dir/inbox.sqlite"])
            Issue.record("a store in a missing folder opened")
        } catch let error as StartupError {
            #expect(error.description.contains("cannot open the inbox store /nonexistent-dir/inbox.sqlite"))
            #expect(error.description.contains("--data PATH"))
        }
    }

    /// An embedder can build a Configuration by hand; the application still checks its addresses.
    @Test func handBuiltConfigurationIsChecked() throws {
        var configuration = try Configuration.load(configFile: nil, environment: [:], flags: [:])
        configuration.http = "not-an-address"
        #expect(throws: ConfigurationError.self) { try Application(configuration: configuration) }
        configuration.http = "127.0.0.1:0"
        configuration.smtp = "nowhere"
        #expect(throws: ConfigurationError.self) { try Application(configuration: configuration) }
    }
}

@Test func openAPIDescribesEveryAPIRoute() throws {
    var router = Router()
    let store = try MessageStore(location: .temporary)
    defer { store.close() }
    let grants = try GrantStore(location: .temporary)
    defer { grants.close() }
    try Assembly.registerRoutes(on: &router, configuration: Configuration.load(configFile: nil, environment: [:], flags: [:]),
                                inbox: Inbox(store: store, clock: { 0 }), grants: grants)
    // Mailpit's API v1 is described by Mailpit's own swagger, not here.
    let routed = Set(router.routes.filter { $0.pattern.hasPrefix("/api/") && !$0.pattern.hasPrefix("/api/v1/") }.map { route in
        let path = route.pattern.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
        return route.method.rawValue.lowercased() + " /" + path.joined(separator: "/")
    })
    var described = Set<String>()
    for (path, item) in OpenAPIDocument.paths {
        for (method, _) in item.objectValue ?? [:] { described.insert(method + " " + path) }
    }
    #expect(routed == described)
    #expect(OpenAPIDocument.document["openapi"] == "3.1.0")
}

import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyStore
