import Testing
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

@Suite struct AppleNotificationTests {
    @Test func theEventsJWTIsSignedAndShapedAsApplesAre() throws {
        let apple = ProviderFixture().apple
        let n = try AppleNotification(json: ["type": "email-disabled", "email": "x@privaterelay.appleid.com", "url": "http://127.0.0.1:1/n"])
        let minted = try n.sign(with: apple, now: 1_000, jti: "j1")
        let (header, claims) = try ProviderFixture.verifiedClaims(minted.idToken, ring: ProviderFixture.appleKeys)
        #expect(header["alg"] == "RS256" && header["kid"]?.stringValue == ProviderFixture.appleKeys.keys[0].kid)
        #expect(claims.keys == ["iss", "aud", "iat", "jti", "events"])
        #expect(claims["iss"] == "https://appleid.apple.com" && claims["aud"] == "com.example.app" && claims["jti"] == "j1")
        let events = try JSONValue.parse(Array(try #require(claims["events"]?.stringValue).utf8))
        #expect(events["type"] == "email-disabled" && events["email"] == "x@privaterelay.appleid.com")
        #expect(events["is_private_email"] == "true" && events["event_time"] == 1_000_000)
        #expect(events["sub"]?.stringValue == apple.subject(forEmail: "x@privaterelay.appleid.com"))
    }

    @Test func consentRevokedNamesOnlyTheSubject() throws {
        let n = try AppleNotification(json: ["type": "consent-revoked", "sub": "000001.abc.0001", "url": "http://127.0.0.1:1/"])
        let events = try JSONValue.parse(Array(try n.sign(with: ProviderFixture().apple, now: 5, jti: "j").claims["events"]!.stringValue!.utf8))
        #expect(events.objectValue?.keys == ["type", "sub", "event_time"])
    }

    @Test(arguments: [
        (#"{"type": "bye", "email": "a@b", "url": "http://x/"}"#, "type"),
        (#"{"type": "account-delete", "url": "http://x/"}"#, "email"),
        (#"{"type": "email-enabled", "sub": "s", "url": "http://x/"}"#, "email"),
        (#"{"type": "account-delete", "sub": "s"}"#, "url"),
        (#"{"type": "account-delete", "sub": "s", "url": "https://x/"}"#, "url"),
        (#"{"type": "account-delete", "sub": "s", "url": "http://x/", "to": 1}"#, "to"),
    ])
    func errorsNameTheField(_ json: String, _ field: String) {
        #expect { try AppleNotification(json: try JSONValue.parse(json)) } throws: { ($0 as? MintError)?.field == field }
    }
}
