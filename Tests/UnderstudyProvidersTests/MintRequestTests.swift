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

/// Bounds on what one mint may ask for.
@Suite struct MintLimitTests {
    static func claims(_ n: Int) -> JSONValue {
        .object(JSONObject((0..<n).map { ("c\($0)", JSONValue.integer(Int64($0))) }))
    }

    @Test func twoHundredFiftySixExtraClaimsAreMinted() throws {
        let request = try MintRequest(json: ["claims": Self.claims(MintRequest.maximumExtraClaims)])
        let token = try ProviderFixture().google.mint(request, now: ProviderFixture.now)
        #expect(token.claims["c255"] == 255)
        #expect(token.claims["iss"] == "https://accounts.google.com")
    }

    @Test(arguments: [257, 60_000])
    func moreExtraClaimsAreRefusedNamingTheLimit(count: Int) {
        do {
            _ = try MintRequest(json: ["claims": Self.claims(count)])
            Issue.record("accepted \(count) claims")
        } catch {
            #expect(error.field == "claims")
            #expect(error.message.contains("at most 256 extra claims"), "\(error.message)")
        }
    }

    @Test func aRequestBuiltInCodeIsCheckedToo() {
        var request = MintRequest()
        request.claims = Self.claims(300).objectValue!
        #expect(throws: MintError.self) { try ProviderFixture().apple.mint(request, now: ProviderFixture.now) }
    }

    @Test func aTokenOver64KiBIsRefused() throws {
        let request = try MintRequest(json: ["claims": ["blob": .string(String(repeating: "x", count: 60_000))]])
        do {
            _ = try ProviderFixture().apple.mint(request, now: ProviderFixture.now)
            Issue.record("minted an oversized token")
        } catch {
            #expect(error.message.contains("65536"), "\(error.message)")
        }
        // Just under: fine.
        let fits = try MintRequest(json: ["claims": ["blob": .string(String(repeating: "x", count: 40_000))]])
        #expect(try ProviderFixture().apple.mint(fits, now: ProviderFixture.now).idToken.utf8.count <= MintRequest.maximumTokenBytes)
    }
}
