import Testing
import UnderstudyJOSE
import UnderstudyJSON
@testable import UnderstudyProviders

@Suite struct AppleProviderTests {
    @Test func subjectHasApplesShapeAndIsStable() {
        let d = IdentityDeriver(seed: "seed")
        let a = d.appleSubject(email: "alice@example.com", teamID: "TEAM123456")
        let parts = a.split(separator: ".")
        #expect(parts.count == 3)
        #expect(parts[0].count == 6 && parts[0].allSatisfy(\.isNumber))
        #expect(parts[1].count == 32 && parts[1].allSatisfy(\.isHexDigit))
        #expect(parts[2].count == 4 && parts[2].allSatisfy(\.isNumber))
        #expect(d.appleSubject(email: "ALICE@example.com", teamID: "TEAM123456") == a)
        let b = d.appleSubject(email: "bob@example.com", teamID: "TEAM123456")
        #expect(b != a)
        #expect(b.prefix(6) == a.prefix(6) && b.suffix(4) == a.suffix(4))  // fixed per team
        #expect(IdentityDeriver(seed: "other").appleSubject(email: "alice@example.com", teamID: "TEAM123456") != a)
    }

    @Test func mintsApplesHeaderAndClaims() throws {
        let f = ProviderFixture()
        let token = try f.apple.mint(ProviderFixture.request(["aud": "com.example.app", "email": "alice@example.com", "rawNonce": "abc"]),
                                     now: ProviderFixture.now)
        let (header, claims) = try ProviderFixture.verifiedClaims(token.idToken, ring: ProviderFixture.appleKeys)
        #expect(header.keys == ["kid", "alg"])
        #expect(header["alg"] == "RS256")
        #expect(claims.keys == ["iss", "aud", "exp", "iat", "sub", "nonce", "email", "email_verified", "is_private_email",
                                "auth_time", "nonce_supported"])
        #expect(claims["iss"] == "https://appleid.apple.com")
        #expect(claims["aud"] == "com.example.app")
        let iat = try #require(claims["iat"]?.intValue)
        #expect(iat == ProviderFixture.now - 5)
        #expect(claims["exp"]?.intValue == iat + 600)
        // SHA-256("abc") in hex, what native clients send to Apple.
        #expect(claims["nonce"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(claims["email_verified"] == "true")
        #expect(claims["is_private_email"] == "false")
        #expect(claims["nonce_supported"] == true)
        #expect(token.claims == claims)
    }

    @Test func booleansFollowTheConfiguredStyle() throws {
        let f = ProviderFixture { $0.apple.booleanStyle = .bool }
        let token = try f.apple.mint(ProviderFixture.request(["email": "x@privaterelay.appleid.com", "emailVerified": false]), now: ProviderFixture.now)
        #expect(token.claims["email_verified"] == false)
        #expect(token.claims["is_private_email"] == true)
    }

    @Test func defaultsComeFromConfiguration() throws {
        let f = ProviderFixture {
            $0.apple.bundleIDs = ["com.acme.ios"]
            $0.apple.servicesIDs = ["com.acme.web"]
            $0.apple.tokenLifetime = 120
        }
        let native = try f.apple.mint(MintRequest(), now: ProviderFixture.now)
        #expect(native.claims["aud"] == "com.acme.ios")
        #expect(native.claims["email"] == "alice@example.com")
        #expect(native.claims["exp"]?.intValue == ProviderFixture.now - 5 + 120)
        #expect(native.claims["nonce"] == nil)
        let web = try f.apple.mint(ProviderFixture.request(["platform": "web"]), now: ProviderFixture.now)
        #expect(web.claims["aud"] == "com.acme.web")
    }

    @Test func extraClaimsOverrideAnything() throws {
        let f = ProviderFixture()
        let token = try f.apple.mint(ProviderFixture.request([
            "nonce": "n-0S6_WzA2Mj", "realUserStatus": 2, "ttl": 60, "kid": "APPLEKEY02",
            "claims": ["iss": "https://account.apple.com", "transfer_sub": "x"],
        ]), now: ProviderFixture.now)
        #expect(token.claims["iss"] == "https://account.apple.com")
        #expect(token.claims["nonce"] == "n-0S6_WzA2Mj")
        #expect(token.claims["real_user_status"] == 2)
        #expect(token.claims["transfer_sub"] == "x")
        #expect(token.header["kid"] == "APPLEKEY02")
        #expect(token.claims["exp"]?.intValue == ProviderFixture.now - 5 + 60)
    }

    @Test func unknownKidIsRefused() {
        let f = ProviderFixture()
        #expect(throws: MintError.self) { try f.apple.mint(ProviderFixture.request(["kid": "nope"]), now: ProviderFixture.now) }
    }

    @Test func discoveryPointsAtUnderstudy() {
        let doc = ProviderFixture().apple.discoveryDocument(baseURL: "http://127.0.0.1:9999")
        #expect(doc["issuer"] == "https://appleid.apple.com")
        #expect(doc["jwks_uri"] == "http://127.0.0.1:9999/apple/auth/keys")
        #expect(doc["subject_types_supported"] == ["pairwise"])
    }

    @Test func jwksHasApplesMemberOrder() throws {
        let doc = ProviderFixture().apple.jwksDocument()
        let keys = try #require(doc["keys"]?.arrayValue)
        #expect(keys.count == 3)
        #expect(keys[0].objectValue?.keys == ["kty", "kid", "use", "alg", "n", "e"])
        #expect(keys[0]["e"] == "AQAB")
    }
}
