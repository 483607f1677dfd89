import Testing
import UnderstudyHTTP
import UnderstudyHTTPServer
import UnderstudyIO
import UnderstudyJSON
@testable import UnderstudyApp

/// Which CONNECT tunnels the HTTP port opens, decided without sockets.
@Suite struct ConnectPolicyTests {
    static let layer = ConnectionLayer { $0 }

    static func connect(_ target: String) -> HTTPRequest {
        HTTPRequest(method: .connect, target: target, headers: ["Host": target])
    }

    static func refusal(_ decision: HTTPConnectDecision) -> (Int, String?)? {
        guard case .refuse(let response) = decision else { return nil }
        return (response.status.code, (try? JSONValueProbe.error(response.body)) ?? nil)
    }

    @Test func providerHostsAreServedHereAndNothingElse() {
        let policy = ConnectPolicy(tls: Self.layer)
        for target in ["appleid.apple.com:443", "WWW.GoogleAPIs.com:443", "oauth2.googleapis.com.:443"] {
            guard case .serve = policy.decide(Self.connect(target)) else {
                Issue.record("\(target) should be served here")
                continue
            }
        }
        let other = Self.refusal(policy.decide(Self.connect("example.com:443")))
        #expect(other?.0 == 403 && other?.1 == "offline_by_design")
        let garbage = Self.refusal(policy.decide(Self.connect("[::1")))
        #expect(garbage?.0 == 403)
    }

    @Test func withHTTPSOffAProviderHostIsA503NamingTheFlag() {
        let policy = ConnectPolicy(tls: nil)
        let refused = Self.refusal(policy.decide(Self.connect("appleid.apple.com:443")))
        #expect(refused?.0 == 503 && refused?.1 == "https_off")
    }

    @Test func passThroughTunnelsOtherHostsWithAValidPortOnly() {
        let policy = ConnectPolicy(tls: Self.layer, passThrough: true)
        guard case .passThrough(let host, let port) = policy.decide(Self.connect("Example.COM:8443")) else {
            Issue.record("expected a pass-through")
            return
        }
        #expect(host == "example.com" && port == 8443)
        for bad in ["example.com", "example.com:0", "example.com:70000", "example.com:http"] {
            #expect(Self.refusal(policy.decide(Self.connect(bad)))?.0 == 403, "\(bad)")
        }
        guard case .serve = policy.decide(Self.connect("accounts.google.com:443")) else {
            Issue.record("provider hosts are still served here")
            return
        }
    }
}

/// Reads `error` from a JSON problem body.
enum JSONValueProbe {
    static func error(_ body: [UInt8]) throws -> String? {
        try UnderstudyJSON.JSONValue.parse(body)["error"]?.stringValue
    }
}
