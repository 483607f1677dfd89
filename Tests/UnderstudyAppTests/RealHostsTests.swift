import Testing
import UnderstudyHTTP
import UnderstudyIO
import UnderstudyJSON
import UnderstudyMailAPIs
import UnderstudyTestSupport
import UnderstudyTLS
@testable import UnderstudyApp
import UnderstudyCA

/// Answering as Apple's and Google's hosts: host routing on the plain port (Host header, proxy
/// requests in absolute form) and on the HTTPS port (certificates from the local CA, by SNI).
@Suite(.serialized) struct RealHostsTests {
    static func json(_ response: String) -> JSONValue? {
        guard let split = response.firstRange(of: "\r\n\r\n") else { return nil }
        return try? JSONValue.parse(Array(response[split.upperBound...].utf8))
    }

    @Test func providerHostsAreRoutedOnTheirRealPathsOverPlainHTTP() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        let apple = try client.request("GET", "/auth/keys", headers: [("Host", "appleid.apple.com")])
        #expect(apple.status == 200 && apple.json?["keys"]?.arrayValue?.count == 3)
        let v3 = try client.request("GET", "/oauth2/v3/certs", headers: [("Host", "www.googleapis.com")])
        #expect(v3.json?["keys"]?.arrayValue?.count == 2)
        let v1 = try client.request("GET", "/oauth2/v1/certs", headers: [("Host", "www.googleapis.com:443")])
        #expect(v1.header("Cache-Control")?.hasPrefix("public, max-age=") == true)
        // A proxy request in absolute form names the host in its target.
        let proxied = try client.request("GET", "http://appleid.apple.com/auth/keys", headers: [("Host", "appleid.apple.com")])
        #expect(proxied.status == 200)
        // The localhost API stays where it was; a provider host has no /api.
        #expect(try client.get("/apple/auth/keys").status == 200)
        let noAPI = try client.request("GET", "/api/messages", headers: [("Host", "appleid.apple.com")])
        #expect(noAPI.status == 404)
    }

    /// The HTTP email APIs answer on their real hostnames (SES in any region) and through CONNECT,
    /// and what they take lands in the inbox, found by /api/otp like SMTP mail.
    @Test func emailAPIsAnswerOnTheirRealHostnames() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        let resend = try client.request("POST", "/emails", headers: [("Host", "api.resend.com"), ("Authorization", "Bearer re_x"),
                                                                      ("Content-Type", "application/json")],
                                        body: Array(#"{"from":"a@acme.dev","to":"host@example.com","subject":"Code","text":"Your code is 246810"}"#.utf8))
        #expect(resend.status == 200 && resend.json?["id"]?.stringValue != nil)
        #expect(try client.get("/api/otp?to=host@example.com&wait=10").json?["code"] == "246810")
        let ses = try client.request("POST", "/v2/email/outbound-emails", headers: [
            ("Host", "email.ap-northeast-1.amazonaws.com"), ("Content-Type", "application/json"),
            ("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20261203/ap-northeast-1/ses/aws4_request, Signature=x")],
            body: Array(#"{"FromEmailAddress":"a@acme.dev","Destination":{"ToAddresses":["ses@example.com"]},"Content":{"Simple":{"Subject":{"Data":"S"},"Body":{"Text":{"Data":"Code 135791"}}}}}"#.utf8))
        #expect(ses.status == 200 && ses.json?["MessageId"] != nil)
        #expect(try client.get("/api/v1/search?query=source:ses").json?["messages_count"] == 1)
        for (prefix, hosts) in EmailAPIRoutes.prefixes {
            for host in hosts { #expect(VirtualHosts.prefix(for: host) == prefix, "\(host)") }
        }
        #expect(VirtualHosts.prefix(for: "email.us-west-1.amazonaws.com") == "/ses")
        #expect(VirtualHosts.prefix(for: "email..amazonaws.com") == nil && VirtualHosts.prefix(for: "s3.amazonaws.com") == nil)
        let refused = ConnectPolicy(tls: nil).decide(HTTPRequest(method: .connect, target: "api.other.com:443"))
        if case .refuse(let response) = refused { #expect(response.status == .forbidden) } else { Issue.record("not refused") }
        if case .refuse(let response) = ConnectPolicy(tls: nil).decide(HTTPRequest(method: .connect, target: "api.postmarkapp.com:443")) {
            #expect(response.status == .serviceUnavailable)  // known host; no TLS to answer it with
        } else { Issue.record("not recognised") }
    }

    /// Discovery on a provider host names the real https:// endpoints, as the real document does,
    /// so a client that discovered it (go-oidc in Supabase Auth) keeps talking to the real names.
    @Test func discoveryOnTheRealHostsNamesTheRealEndpoints() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        let google = try client.request("GET", "/.well-known/openid-configuration", headers: [("Host", "accounts.google.com")]).json
        #expect(google?["issuer"] == "https://accounts.google.com")
        #expect(google?["jwks_uri"] == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(google?["token_endpoint"] == "https://oauth2.googleapis.com/token")
        #expect(google?["userinfo_endpoint"] == "https://openidconnect.googleapis.com/v1/userinfo")
        #expect(google?["authorization_endpoint"] == "https://accounts.google.com/o/oauth2/v2/auth")
        let apple = try client.request("GET", "/.well-known/openid-configuration", headers: [("Host", "appleid.apple.com")]).json
        #expect(apple?["issuer"] == "https://appleid.apple.com")
        #expect(apple?["jwks_uri"] == "https://appleid.apple.com/auth/keys")
        #expect(apple?["token_endpoint"] == "https://appleid.apple.com/auth/token")
    }

    @Test func theHTTPSPortAnswersAsEachHostWithACertificateFromTheLocalCA() throws {
        let (app, _) = try ApplicationTests.start()
        defer { app.shutdown() }
        let ca = try #require(app.certificateAuthority)
        let address = try #require(app.httpsAddress.flatMap(ListenAddress.init))
        let socketAddress = try SocketAddress(host: address.host, port: address.port)
        let context = try TLSContext(configuration: .client(trustRoots: [ca.certificate]))
        for (host, path, keys) in [("appleid.apple.com", "/auth/keys", 3), ("www.googleapis.com", "/oauth2/v3/certs", 2)] {
            let client = try TLSTestClient(socketAddress, context: context, serverName: host)
            #expect(client.handshake().isComplete, "handshake as \(host)")
            let response = try client.request("GET", path, host: host)
            #expect(response.hasPrefix("HTTP/1.1 200"), "\(host)\(path): \(response.prefix(200))")
            #expect(Self.json(response)?["keys"]?.arrayValue?.count == keys)
            #expect(client.engine.peerCertificateChain.first?.dnsNames == [host])
        }
        // Path-routed localhost over TLS too, with discovery naming https.
        let local = try TLSTestClient(socketAddress, context: context, serverName: "localhost")
        #expect(local.handshake().isComplete)
        let discovery = Self.json(try local.request("GET", "/apple/.well-known/openid-configuration", host: "localhost:\(address.port)"))
        #expect(discovery?["jwks_uri"] == .string("https://localhost:\(address.port)/apple/auth/keys"))
        // A client that trusts another CA is refused, and the server goes on.
        let otherFolder = try TemporaryFolder()
        defer { otherFolder.remove() }
        let stranger = try TLSContext(configuration: .client(trustRoots: [
            try UnderstudyCA.CertificateAuthority(directory: otherFolder.path + "/ca").certificate]))
        #expect(try TLSTestClient(socketAddress, context: stranger, serverName: "appleid.apple.com").handshake().isFailed)
        #expect(try TLSTestClient(socketAddress, context: context, serverName: "appleid.apple.com").handshake().isComplete)
    }

    /// The HTTP port as an HTTPS proxy: a CONNECT to a provider host is answered 200 and TLS is
    /// terminated right there with that host's certificate, even when the ClientHello comes in
    /// the same packet as the CONNECT; any other host is refused, naming it.
    @Test func connectToAProviderHostIsServedHereAndOthersAreRefused() throws {
        let (app, client) = try ApplicationTests.start()
        defer { app.shutdown() }
        let ca = try #require(app.certificateAuthority)
        let address = try #require(ListenAddress(app.httpAddresses[0]))
        let socketAddress = try SocketAddress(host: address.host, port: address.port)
        let context = try TLSContext(configuration: .client(trustRoots: [ca.certificate]))

        let raw = try TestClient(socketAddress)
        let tls = try TLSTestClient(socket: raw, context: context, serverName: "oauth2.googleapis.com")
        raw.send(Array("CONNECT oauth2.googleapis.com:443 HTTP/1.1\r\nHost: oauth2.googleapis.com:443\r\n\r\n".utf8)
                 + tls.engine.drainForNetwork())   // the hello pipelined after the CONNECT
        #expect(raw.readLine() == "HTTP/1.1 200 Connection established")
        #expect(raw.readLine() == "")
        #expect(tls.handshake().isComplete)
        let token = try #require(try client.postJSON("/api/tokens/google", ["email": "tunnel@example.com"]).json?["idToken"]?.stringValue)
        let info = try tls.request("GET", "/tokeninfo?id_token=\(token)", host: "oauth2.googleapis.com")
        #expect(info.hasPrefix("HTTP/1.1 200"))
        #expect(Self.json(info)?["email"] == "tunnel@example.com")

        let refused = try client.request("CONNECT", "example.com:443", headers: [("Host", "example.com:443")])
        #expect(refused.status == 403)
        #expect(refused.json?["error"] == "offline_by_design")
        #expect(refused.json?["message"]?.stringValue?.contains("example.com:443") == true)
    }

    /// With --proxy-passthrough, a CONNECT to another host is tunnelled to it: here a local echo
    /// server stands for the real host, and the bytes pipelined after the CONNECT reach it too.
    @Test func passThroughTunnelsOtherHostsAndAnswers502WhenUnreachable() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let echo = TCPServer(configuration: .init(port: 0), group: group) { _ in EchoOnce() }
        let upstream = try echo.start()
        let (app, client) = try ApplicationTests.start(["--proxy-passthrough": "true"])
        defer { app.shutdown() }
        let address = try #require(ListenAddress(app.httpAddresses[0]))
        let raw = try TestClient(try SocketAddress(host: address.host, port: address.port))
        raw.send("CONNECT 127.0.0.1:\(upstream.port) HTTP/1.1\r\nHost: 127.0.0.1:\(upstream.port)\r\n\r\nearly ")
        #expect(raw.readLine() == "HTTP/1.1 200 Connection established")
        #expect(raw.readLine() == "")
        raw.send("late")
        #expect(raw.read(count: 10) == Array("early late".utf8))
        raw.close()

        // A port nobody listens on: 502, naming it.
        let closedPort = try { () throws -> Int in
            let probe = TCPServer(configuration: .init(port: 0), group: group) { _ in EchoOnce() }
            let port = try probe.start().port
            probe.stop()
            return port
        }()
        _ = waitUntil { (try? TestClient(try SocketAddress(host: "127.0.0.1", port: closedPort))) == nil }
        let refused = try client.request("CONNECT", "127.0.0.1:\(closedPort)", headers: [("Host", "127.0.0.1:\(closedPort)")])
        #expect(refused.status == 502)
        #expect(refused.json?["error"] == "upstream_unreachable")
    }
}

/// Echoes what it receives.
private final class EchoOnce: ConnectionHandler {
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
        connection.write(Array(bytes))
    }
}
