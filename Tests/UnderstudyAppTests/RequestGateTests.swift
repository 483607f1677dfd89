import Testing
import UnderstudyJSON
@testable import UnderstudyApp

/// The Host allow-list (DNS rebinding) and the API token, checked before any route runs.
@Suite struct HostAllowListTests {
    static let list = HostAllowList(allowHosts: ["dev.example.test", "*.preview.test", "Shared.Example:9000"],
                                    publicURL: "https://understudy.example.org:8443/base", listenHosts: ["127.0.0.1"])

    @Test(arguments: [
        "localhost", "localhost:7080", "LOCALHOST.", "app.localhost:3000", "127.0.0.1", "127.0.0.1:7080", "127.1.2.3:80",
        "[::1]", "[::1]:7080", "[0:0:0:0:0:0:0:1]:1", "appleid.apple.com", "account.apple.com", "accounts.google.com",
        "www.googleapis.com:443", "oauth2.googleapis.com", "openidconnect.googleapis.com", "understudy.example.org",
        "understudy.example.org:8443", "dev.example.test:1234", "a.preview.test", "shared.example",
    ])
    func served(host: String) {
        #expect(Self.list.allows(host), "\(host)")
    }

    @Test(arguments: [
        "rebind.attacker.example", "rebind.attacker.example:7080", "127.0.0.1.attacker.example", "localhost.attacker.example",
        "128.0.0.1", "10.0.0.5:7080", "[::2]", "[::1", "::1", "127.0.0.1:80:80", "preview.test", "apple.com", "x y",
        "user@localhost", "localhost:http",
    ])
    func refused(host: String) {
        #expect(!Self.list.allows(host), "\(host)")
    }

    @Test func noHostIsLoopbackAndStarAllowsAny() {
        #expect(Self.list.allows(nil))
        let any = HostAllowList(allowHosts: ["*"], publicURL: nil, listenHosts: [])
        #expect(any.allows("rebind.attacker.example:7080"))
        let wildcardBind = HostAllowList(allowHosts: [], publicURL: nil, listenHosts: ["0.0.0.0"])
        #expect(!wildcardBind.allows("0.0.0.0") && !wildcardBind.allows("192.168.1.9"))
    }
}

/// The whole server, answering a raw request (its own Host header) over real TCP.
@Suite(.serialized) struct RequestGateLiveTests {
    struct Answer {
        var status: Int
        var head: String
        var body: [UInt8]
        var json: JSONValue? { try? JSONValue.parse(body) }
        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() { return String(parts[1].drop { $0 == " " }) }
            }
            return nil
        }
    }

    static func raw(_ app: Application, _ text: String) throws -> Answer {
        let address = ListenAddress(app.httpAddresses[0])!
        let socket = try BlockingSocket(host: address.host, port: address.port)
        defer { socket.close() }
        try socket.send(text)
        let bytes = try socket.readToEnd()
        let separator = Array("\r\n\r\n".utf8)
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return Answer(status: 0, head: String(decoding: bytes, as: UTF8.self), body: [])
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Answer(status: status, head: head, body: Array(bytes[(end + 4)...]))
    }

    static func get(_ app: Application, _ path: String, host: String?, method: String = "GET",
                    headers: String = "", body: String = "") throws -> Answer {
        try raw(app, "\(method) \(path) HTTP/1.1\r\n" + (host.map { "Host: \($0)\r\n" } ?? "") + headers
                + "Connection: close\r\n\r\n" + body)
    }

    @Test func aRebindingHostGets421AndChangesNothing() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        _ = try client.request("DELETE", "/api/messages")
        for (method, path) in [("DELETE", "/api/messages"), ("GET", "/api/messages"), ("POST", "/api/tokens/apple"),
                               ("GET", "/apple/.well-known/openid-configuration"), ("GET", "/healthz")] {
            let answer = try Self.get(app, path, host: "rebind.attacker.example", method: method,
                                      headers: method == "POST" ? "Content-Type: application/json\r\nContent-Length: 2\r\n" : "",
                                      body: method == "POST" ? "{}" : "")
            #expect(answer.status == 421, "\(method) \(path)")
            #expect(answer.json?["error"] == "unknown_host")
            let message = answer.json?["message"]?.stringValue ?? ""
            #expect(message.contains("Host 'rebind.attacker.example' is not one Understudy serves"), "\(message)")
            #expect(message.contains("--allow-host rebind.attacker.example"), "\(message)")
            #expect(message.contains("UNDERSTUDY_SERVER_ALLOW_HOSTS"), "\(message)")
            #expect(answer.header("X-Content-Type-Options") == "nosniff")
        }
        // Discovery reflects only hosts that are served.
        let port = ListenAddress(app.httpAddresses[0])!.port
        for host in ["localhost:\(port)", "app.localhost:\(port)", "[::1]:\(port)", "127.0.0.1:\(port)"] {
            let discovery = try Self.get(app, "/apple/.well-known/openid-configuration", host: host)
            #expect(discovery.status == 200, "\(host)")
            #expect(discovery.json?["jwks_uri"] == .string("http://\(host)/apple/auth/keys"))
        }
        // HTTP/1.0 without Host counts as loopback.
        #expect(try Self.raw(app, "GET /healthz HTTP/1.0\r\n\r\n").status == 200)
    }

    @Test func allowedHostsAreServed() throws {
        let (app, _) = try ApplicationTests.start(["--allow-host": "rebind.attacker.example,dev.example.test"])
        defer { app.shutdown() }
        let discovery = try Self.get(app, "/google/.well-known/openid-configuration", host: "dev.example.test:7080")
        #expect(discovery.json?["jwks_uri"] == "http://dev.example.test:7080/google/oauth2/v3/certs")
        #expect(try Self.get(app, "/api/messages", host: "rebind.attacker.example").status == 200)
        #expect(try Self.get(app, "/api/messages", host: "other.example").status == 421)

        let (open, _) = try ApplicationTests.start(["--server-allow-hosts": "*"])
        defer { open.shutdown() }
        #expect(try Self.get(open, "/api/messages", host: "anything.example").status == 200)
    }

    @Test func anAPITokenGuardsTheAPIButNotTheProviderRoutes() throws {
        let (app, client) = try ApplicationTests.start(["--api-token": "s3cret-token"])
        defer { app.shutdown() }
        for path in ["/api/messages", "/api/otp?to=a@example.com", "/api/openapi.json", "/%61pi/messages",
                     "/api/v1/messages", "/view/latest.html"] {
            let denied = try client.get(path)
            #expect(denied.status == 401, "\(path)")
            #expect(denied.json?["error"] == "unauthorized")
            #expect(denied.json?["message"]?.stringValue?.contains("Authorization: Bearer") == true)
            #expect(denied.header("WWW-Authenticate") == "Bearer")
        }
        #expect(try client.request("DELETE", "/api/messages", headers: [("Authorization", "Bearer wrong-token!")]).status == 401)
        #expect(try client.request("DELETE", "/api/messages", headers: [("Authorization", "Basic s3cret-token")]).status == 401)
        #expect(try client.postJSON("/api/tokens/apple", ["email": "a@example.com"]).status == 401)
        let allowed = try client.request("GET", "/api/messages", headers: [("Authorization", "Bearer s3cret-token")])
        #expect(allowed.status == 200 && allowed.json?["total"] == 0)
        for path in ["/healthz", "/apple/auth/keys", "/apple/.well-known/openid-configuration",
                     "/google/.well-known/openid-configuration", "/google/oauth2/v3/certs", "/google/oauth2/v1/certs"] {
            #expect(try client.get(path).status == 200, "\(path)")
        }
        #expect(try client.get("/google/tokeninfo?id_token=abc").status == 400)   // Google's answer, not 401
    }
}

/// Listening beyond loopback needs an API token or `--allow-remote`. These never bind: the
/// refusal comes first, and the accepted cases are checked without starting.
@Suite struct ExposureTests {
    static func configuration(_ flags: [String: String]) throws -> Configuration {
        var all = ["--http": "127.0.0.1:0", "--smtp": "127.0.0.1:0"]
        all.merge(flags) { $1 }
        return try Configuration.load(configFile: nil, environment: [:], flags: all)
    }

    @Test(arguments: [["--http": "0.0.0.0:0"], ["--smtp": "0.0.0.0:0"], ["--http": "[::]:0"], ["--http": "192.0.2.10:0"]])
    func aNonLoopbackListenerIsRefusedNamingTheFix(flags: [String: String]) throws {
        let configuration = try Self.configuration(flags)
        do {
            _ = try Application(configuration: configuration)
            Issue.record("started on \(flags)")
        } catch let error as StartupError {
            #expect(error.description.contains("refusing to listen beyond loopback"))
            #expect(error.description.contains("--api-token"))
            #expect(error.description.contains("--allow-remote"))
        }
    }

    @Test func aTokenOrAllowRemoteAccepts() throws {
        #expect(throws: Never.self) { try Application.checkExposure(Self.configuration(["--http": "0.0.0.0:0", "--allow-remote": "true"])) }
        #expect(throws: Never.self) { try Application.checkExposure(Self.configuration(["--http": "0.0.0.0:0", "--api-token": "t"])) }
        #expect(throws: Never.self) { try Application.checkExposure(Self.configuration(["--http": "localhost:0", "--smtp": "[::1]:0"])) }
        #expect(Application.remoteListeners(try Self.configuration(["--smtp": "0.0.0.0:25"])) == ["smtp 0.0.0.0:25"])
        #expect(Application.remoteListeners(try Self.configuration(["--http": "127.0.0.2:80"])).isEmpty)
    }

    @Test func theCLIExitsWithTheStartUpError() {
        let result = runCLI(["serve", "--http", "0.0.0.0:0", "--smtp", "127.0.0.1:0"])
        #expect(result.status == 1)
        #expect(result.err.contains("refusing to listen beyond loopback"))
        #expect(result.err.contains("--allow-remote"))
    }

    @Test func settingsFromFlagsAndEnvironment() throws {
        let parsed = try ParsedArguments.parse(["--allow-host", "a.test", "--allow-host", "b.test:8080", "--allow-remote",
                                                "--api-token", "tok"],
                                               options: UnderstudyCLI.settingOptions, command: "understudy serve")
        let c = try UnderstudyCLI.configuration(parsed, environment: [:])
        #expect(c.server.allowHosts == ["a.test", "b.test:8080"])
        #expect(c.server.allowRemote && c.server.apiToken == "tok")
        let e = try Configuration.load(configFile: nil, environment: ["UNDERSTUDY_SERVER_ALLOW_HOSTS": "x.test, y.test",
                                                                     "UNDERSTUDY_SERVER_API_TOKEN": "env-token",
                                                                     "UNDERSTUDY_SERVER_ALLOW_REMOTE": "true"], flags: [:])
        #expect(e.server.allowHosts == ["x.test", "y.test"] && e.server.apiToken == "env-token" && e.server.allowRemote)
        let defaults = try Configuration.load(configFile: nil, environment: [:], flags: [:])
        #expect(defaults.server.allowHosts.isEmpty && !defaults.server.allowRemote && defaults.server.apiToken == nil)
    }
}
