import Testing
import UnderstudyJSON
import UnderstudyProviders

@Suite struct MintRequestTests {
    @Test func readsEveryField() throws {
        let r = try MintRequest(json: [
            "aud": "a", "email": "e@x", "sub": "s", "rawNonce": "r", "name": "n", "givenName": "g", "familyName": "f",
            "picture": "p", "azp": "z", "hd": "h", "platform": "ios", "emailVerified": false, "isPrivateEmail": true,
            "realUserStatus": 1, "ttl": 30, "claims": ["x": 1],
        ])
        #expect(r.aud == "a" && r.email == "e@x" && r.sub == "s" && r.rawNonce == "r" && r.platform == .ios)
        #expect(r.emailVerified == false && r.isPrivateEmail == true && r.realUserStatus == 1 && r.ttl == 30)
        #expect(r.claims["x"] == 1)
    }

    @Test(arguments: [
        (#"{"aud": 5}"#, "aud"),
        (#"{"email": true}"#, "email"),
        (#"{"platform": "windows"}"#, "platform"),
        (#"{"ttl": 0}"#, "ttl"),
        (#"{"ttl": "60"}"#, "ttl"),
        (#"{"ttl": 999999999}"#, "ttl"),
        (#"{"realUserStatus": 7}"#, "realUserStatus"),
        (#"{"emailVerified": "yes"}"#, "emailVerified"),
        (#"{"claims": [1]}"#, "claims"),
        (#"{"audience": "x"}"#, "audience"),
        (#"{"nonce": "a", "rawNonce": "b"}"#, "rawNonce"),
        (#"[1, 2]"#, "body"),
    ])
    func errorsNameTheField(_ json: String, _ field: String) throws {
        do {
            _ = try MintRequest(json: try JSONValue.parse(json))
            Issue.record("expected \(json) to be refused")
        } catch let error as MintError {
            #expect(error.field == field)
            #expect(error.message.hasPrefix(field))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
