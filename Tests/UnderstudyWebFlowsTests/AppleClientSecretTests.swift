import Testing
import UnderstudyJOSE
import UnderstudyJSON
@testable import UnderstudyWebFlows

@Suite struct AppleClientSecretTests {
    static let key = try! JWS.ES256.PrivateKey()
    let now: Int64 = 1_800_000_000

    func secret(kid: String = "KEY1234567", iss: String = "TEAM123456", sub: String = "com.example.web",
                aud: JSONValue = "https://appleid.apple.com", iat: Int64? = nil, exp: Int64? = nil,
                key: JWS.ES256.PrivateKey = AppleClientSecretTests.key) throws -> String {
        let iat = iat ?? now - 10
        return try JWS.sign(header: ["alg": "ES256", "kid": .string(kid)],
                            claims: ["iss": .string(iss), "iat": .integer(iat), "exp": .integer(exp ?? iat + 3600),
                                     "aud": aud, "sub": .string(sub)], key: .es256(key))
    }

    func refused(_ secret: String?, client: OAuthClient? = nil) -> Bool {
        do { try AppleClientSecret.check(secret, clientID: "com.example.web", client: client, now: now); return false } catch {
            return error.code == "invalid_client"
        }
    }

    @Test func aWellFormedSecretPassesWithoutAConfiguredKey() throws {
        #expect(!refused(try secret()))
    }

    @Test func eachClaimIsChecked() throws {
        #expect(refused(nil))
        #expect(refused("not.a.jwt"))
        #expect(refused(try secret(sub: "com.other")))
        #expect(refused(try secret(aud: "https://example.com")))
        #expect(refused(try secret(iss: "")))
        #expect(refused(try secret(kid: "")))
        #expect(refused(try secret(iat: now - 7200, exp: now - 3600)))          // expired
        #expect(refused(try secret(exp: now - 10 + 15_777_001)))               // longer than six months
        #expect(!refused(try secret(exp: now - 10 + 15_777_000)))
    }

    @Test func aConfiguredClientPinsTeamKeyAndSignature() throws {
        let client = OAuthClient(provider: .apple, clientID: "com.example.web", teamID: "TEAM123456", keyID: "KEY1234567",
                                 publicKey: Self.key.publicKey)
        #expect(!refused(try secret(), client: client))
        #expect(refused(try secret(iss: "OTHERTEAM1"), client: client))
        #expect(refused(try secret(kid: "OTHERKEY12"), client: client))
        #expect(refused(try secret(key: try JWS.ES256.PrivateKey()), client: client))
    }
}
