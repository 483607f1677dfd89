import Testing
import UnderstudyJOSE
import UnderstudyJSON
@testable import UnderstudyProviders

@Suite struct GoogleProviderTests {
    @Test func subjectIs21DigitsAndStable() {
        let d = IdentityDeriver(seed: "seed")
        let s = d.googleSubject(email: "alice@example.com")
        #expect(s.count == 21 && s.allSatisfy(\.isNumber) && s.hasPrefix("1"))
        #expect(d.googleSubject(email: "Alice@Example.com") == s)
        #expect(d.googleSubject(email: "bob@example.com") != s)
    }

    @Test func mintsGooglesHeaderAndClaims() throws {
        let f = ProviderFixture()
        let token = try f.google.mint(ProviderFixture.request(["email": "alice@example.com", "nonce": "n1"]), now: ProviderFixture.now)
        let (header, claims) = try ProviderFixture.verifiedClaims(token.idToken, ring: ProviderFixture.googleKeys)
        #expect(header.keys == ["alg", "kid", "typ"])
        #expect(header["typ"] == "JWT")
        #expect(claims.keys == ["iss", "azp", "aud", "sub", "email", "email_verified", "nonce", "name", "given_name",
                                "family_name", "iat", "exp"])
        #expect(claims["iss"] == "https://accounts.google.com")
        #expect(claims["aud"] == .string(f.settings.google.webClientID))
        #expect(claims["azp"] == .string(f.settings.google.webClientID))
        #expect(claims["email_verified"] == true)
        #expect(claims["name"] == "Alice Example")
        #expect(claims["exp"]?.intValue == (claims["iat"]?.intValue ?? 0) + 3600)
    }

    @Test(arguments: [ClientPlatform.android, .ios, .web])
    func nativePlatformsUseTheServerClientAsAudience(_ platform: ClientPlatform) throws {
        let f = ProviderFixture()
        let g = f.settings.google
        let expectedAzp = [ClientPlatform.android: g.androidClientID, .ios: g.iosClientID, .web: g.webClientID][platform]!
        let token = try f.google.mint(ProviderFixture.request(["platform": .string(platform.rawValue)]), now: ProviderFixture.now)
        #expect(token.claims["aud"] == .string(g.webClientID))
        #expect(token.claims["azp"] == .string(expectedAzp))
    }

    @Test func explicitAudienceIsAlsoAzpForWeb() throws {
        let f = ProviderFixture()
        let token = try f.google.mint(ProviderFixture.request(["aud": "my-client", "hd": "example.com"]), now: ProviderFixture.now)
        #expect(token.claims["aud"] == "my-client")
        #expect(token.claims["azp"] == "my-client")
        #expect(token.claims["hd"] == "example.com")
        // Unknown identities get a given name from their address.
        let other = try f.google.mint(ProviderFixture.request(["email": "carol.jones@example.org"]), now: ProviderFixture.now)
        #expect(other.claims["given_name"] == "Carol")
    }

    @Test func tokenInfoAnswersEveryClaimAsAString() throws {
        let f = ProviderFixture()
        let token = try f.google.mint(ProviderFixture.request(["email": "alice@example.com"]), now: ProviderFixture.now)
        let info = try #require(f.google.tokenInfo(token.idToken, now: ProviderFixture.now))
        #expect(info["email_verified"] == "true")
        #expect(info["iat"] == .string(String(ProviderFixture.now - 5)))
        #expect(info["alg"] == "RS256")
        #expect(info["typ"] == "JWT")
        #expect(info["kid"] == token.header["kid"])
        for (_, v) in try #require(info.objectValue) { #expect(v.stringValue != nil) }
    }

    @Test func tokenInfoRefusesBadTokens() throws {
        let f = ProviderFixture()
        let token = try f.google.mint(ProviderFixture.request(["ttl": 10]), now: ProviderFixture.now).idToken
        #expect(f.google.tokenInfo(token, now: ProviderFixture.now + 3600) == nil)  // expired
        var tampered = Array(token)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"
        #expect(f.google.tokenInfo(String(tampered), now: ProviderFixture.now) == nil)
        #expect(f.google.tokenInfo("not.a.token", now: ProviderFixture.now) == nil)
        // Signed by an Apple key: not Google's.
        let apple = try f.apple.mint(MintRequest(), now: ProviderFixture.now).idToken
        #expect(f.google.tokenInfo(apple, now: ProviderFixture.now) == nil)
    }

    @Test func certificatesCarryTheSameKeys() throws {
        let f = ProviderFixture()
        let certs = f.google.certificates
        #expect(certs.count == 2)
        for (kid, pem) in certs {
            #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
            let cert = try X509Certificate(pemRepresentation: pem)
            let expected = try #require(ProviderFixture.googleKeys.publicKey(kid: kid))
            #expect(try cert.publicKey.modulus == expected.modulus)
        }
    }
}
