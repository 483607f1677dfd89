import Testing
import UnderstudyJOSE
@testable import UnderstudyWebFlows

@Suite struct TokenRequestTests {
    func form(_ pairs: [(String, String)]) -> [(name: String, value: String)] { pairs.map { (name: $0.0, value: $0.1) } }

    @Test func basicCredentialsAreFormDecoded() throws {
        let header = "Basic " + Base64.encode(Array("my%20client:s%3Acret".utf8))
        let r = try TokenRequest.parse(form: form([("grant_type", "refresh_token"), ("refresh_token", "1//x")]),
                                       authorization: header, provider: .google)
        #expect(r.clientID == "my client" && r.clientSecret == "s:cret" && r.usedBasic)
        #expect(r.grant == .refreshToken("1//x"))
    }

    @Test func errorsCarryTheOAuthCodes() {
        func code(_ pairs: [(String, String)], auth: String? = nil, _ provider: FlowProvider = .google) -> String? {
            do { _ = try TokenRequest.parse(form: form(pairs), authorization: auth, provider: provider); return nil } catch { return error.code }
        }
        #expect(code([("client_id", "c"), ("grant_type", "password")]) == "unsupported_grant_type")
        #expect(code([("client_id", "c")]) == "invalid_request")
        #expect(code([("grant_type", "authorization_code"), ("code", "x")]) == "invalid_client")
        #expect(code([("client_id", "c"), ("grant_type", "authorization_code")]) == "invalid_request")
        #expect(code([("client_id", "c"), ("client_id", "d"), ("grant_type", "authorization_code"), ("code", "x")]) == "invalid_request")
        #expect(code([("grant_type", "authorization_code"), ("code", "x")], auth: "Basic " + Base64.encode(Array("a:b".utf8)), .apple) == "invalid_client")
    }

    @Test func googleAnswers401ForABadClientAndApple400() {
        #expect(FlowError.invalidClient("x", provider: .google).status.code == 401)
        #expect(FlowError.invalidClient("x", provider: .apple).status.code == 400)
    }
}
