import Testing
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

@Suite struct ScenarioTests {
    static let now = ProviderFixture.now
    static let routes = ProviderFixture().routes
    static let context = ScenarioContext(rawNonce: "raw-nonce-1", jti: "jti-this", previousJTI: "jti-before",
                                         retiredKey: ProviderKey(kid: "RETIRED001", privateKey: ProviderFixture.appleKeys.keys[0].privateKey))

    static let issueNames = [
        "valid", "expired", "expired-by-one-second", "not-yet-valid", "clock-skew-30s", "clock-skew-10m", "issued-long-ago",
        "wrong-audience", "wrong-issuer", "account-apple-issuer", "schemeless-google-issuer", "bad-signature", "unknown-kid",
        "missing-kid", "alg-none", "hs256-key-confusion", "signed-with-retired-key", "nonce-mismatch", "raw-nonce-in-claim",
        "hashed-nonce-in-claim", "missing-nonce", "missing-email", "unverified-email", "string-booleans", "bool-booleans",
        "private-relay-email", "replayed-jti", "azp-mismatch", "android-native", "ios-native-no-server-client", "missing-iat",
        "malformed",
    ]

    @Test func theCatalogueHasEveryScenarioTheIssueNames() {
        let names = Set(Scenario.all.map(\.name))
        for name in Self.issueNames { #expect(names.contains(name), "missing \(name)") }
        #expect(names.count == Scenario.all.count, "names are unique")
    }

    @Test func everyDependsRowHasAVerdictFromEveryProfileThatCoversItsProvider() {
        for s in Scenario.all where s.expected == .depends {
            for p in VerifierProfile.all {
                for provider in s.providers where !(p.name == "google-auth" && provider == .apple) {
                    #expect(p.verdict(scenario: s.name, provider: provider) != nil, "\(p.name) says nothing on \(s.name) for \(provider)")
                }
            }
        }
        // A profile names only scenarios that depend: the others have one answer.
        for s in Scenario.all where s.expected != .depends {
            for p in VerifierProfile.all { #expect(p.verdict(scenario: s.name, provider: .apple) == nil) }
        }
    }

    @Test func theListingCarriesVerdictsAndProfiles() throws {
        let listing = Scenario.listing(provider: .google, profile: VerifierProfile.named("supabase"))
        let rows = try #require(listing["scenarios"]?.arrayValue)
        #expect(!rows.contains { $0["name"] == "account-apple-issuer" })
        let skew = try #require(rows.first { $0["name"] == "clock-skew-30s" })
        #expect(skew["expected"] == "depends")
        #expect(skew["verdict"] == "accept")
        #expect(skew["profiles"]?["better-auth"]?["google"]?["verdict"] == "reject")
        #expect(listing["profiles"]?.arrayValue?.count == VerifierProfile.all.count)
    }

    static func mint(_ name: String, _ provider: ProviderName, _ request: MintRequest = MintRequest()) throws -> ScenarioToken {
        try routes.mintScenario(try #require(Scenario.named(name)), provider: provider, request: request, context: context)
    }

    static func pairs() -> [(String, ProviderName)] {
        Scenario.all.flatMap { s in s.providers.map { (s.name, $0) } }
    }

    /// Each scenario's token is a correct token changed in exactly the way the scenario says.
    @Test(arguments: pairs())
    func eachScenarioHasItsShape(_ name: String, _ provider: ProviderName) throws {
        let minted = try Self.mint(name, provider)
        let ring = provider == .apple ? ProviderFixture.appleKeys : ProviderFixture.googleKeys
        let token = minted.idToken
        let claims = minted.token.claims
        let header = minted.token.header
        let hashed = Hex.encode(SHA256.hash(Array("raw-nonce-1".utf8)))
        let verifies = { () -> Bool in
            guard let kid = header["kid"]?.stringValue, let key = ring.publicKey(kid: kid) else { return false }
            return (try? JWS.verify(token, key: .rs256(key))) != nil
        }
        if !name.hasPrefix("malformed") {
            let decoded = try JWS.decode(token)
            #expect(decoded.claims == claims && decoded.header == header, "the answer shows what the token holds")
        }
        #expect(minted.rawNonce == "raw-nonce-1" && minted.nonce == hashed)
        let iss = provider == .apple ? "https://appleid.apple.com" : "https://accounts.google.com"
        let defaultAud = provider == .apple ? "com.example.app" : ProviderSettings().google.webClientID
        switch name {
        case "valid", "hashed-nonce-in-claim":
            #expect(verifies() && claims["iss"]?.stringValue == iss && claims["aud"]?.stringValue == defaultAud)
            #expect(claims["nonce"]?.stringValue == hashed && claims["jti"] == "jti-this")
            #expect(claims["exp"]!.intValue! > Self.now && claims["iat"]!.intValue! <= Self.now)
        case "expired": #expect(verifies() && claims["exp"] == .integer(Self.now - 3600))
        case "expired-by-one-second": #expect(verifies() && claims["exp"] == .integer(Self.now - 1))
        case "not-yet-valid": #expect(verifies() && claims["nbf"] == .integer(Self.now + 3600) && claims["iat"] == .integer(Self.now + 3600))
        case "clock-skew-30s": #expect(verifies() && claims["iat"] == .integer(Self.now + 30) && claims["nbf"] == nil)
        case "clock-skew-10m": #expect(verifies() && claims["iat"] == .integer(Self.now + 600) && claims["nbf"] == nil)
        case "issued-long-ago": #expect(verifies() && claims["iat"] == .integer(Self.now - 7200) && claims["exp"] == .integer(Self.now + 600))
        case "wrong-audience":
            #expect(verifies() && claims["aud"]?.stringValue != defaultAud && claims["aud"]?.stringValue != nil)
        case "wrong-issuer": #expect(verifies() && claims["iss"]?.stringValue?.hasPrefix(iss + ".") == true)
        case "account-apple-issuer": #expect(verifies() && claims["iss"] == "https://account.apple.com")
        case "schemeless-google-issuer": #expect(verifies() && claims["iss"] == "accounts.google.com")
        case "bad-signature":
            #expect(!verifies() && header["kid"]?.stringValue.flatMap(ring.publicKey) != nil)
        case "unknown-kid":
            let kid = try #require(header["kid"]?.stringValue)
            #expect(ring.publicKey(kid: kid) == nil && kid.count == (provider == .apple ? 10 : 40))
            #expect((try? JWS.verify(token, key: .rs256(ring.keys[0].privateKey.publicKey))) != nil, "signed with the real key")
        case "missing-kid":
            #expect(header["kid"] == nil)
            #expect((try? JWS.verify(token, key: .rs256(ring.keys[0].privateKey.publicKey))) != nil)
        case "alg-none": #expect(header["alg"] == "none" && token.hasSuffix("."))
        case "hs256-key-confusion":
            #expect(header["alg"] == "HS256")
            let secret = Array(ring.keys[0].privateKey.publicKey.pemRepresentation.utf8)
            #expect((try? JWS.verify(token, key: .hs256(secret))) != nil)
        case "signed-with-retired-key":
            #expect(header["kid"] == "RETIRED001" && ring.publicKey(kid: "RETIRED001") == nil)
        case "nonce-mismatch": #expect(verifies() && claims["nonce"]?.stringValue != hashed && claims["nonce"]?.stringValue?.count == 64)
        case "raw-nonce-in-claim": #expect(verifies() && claims["nonce"] == "raw-nonce-1")
        case "missing-nonce": #expect(verifies() && claims["nonce"] == nil)
        case "missing-email": #expect(verifies() && claims["email"] == nil && claims["email_verified"] == nil)
        case "unverified-email": #expect(verifies() && claims["email_verified"] == false)
        case "string-booleans": #expect(verifies() && claims["email_verified"] == "true" && claims["is_private_email"] == "false")
        case "bool-booleans": #expect(verifies() && claims["email_verified"] == true && claims["is_private_email"] == false)
        case "private-relay-email":
            #expect(verifies() && claims["email"]?.stringValue?.hasSuffix("@privaterelay.appleid.com") == true)
            #expect(claims["is_private_email"] == true)
        case "replayed-jti": #expect(verifies() && claims["jti"] == "jti-before")
        case "azp-mismatch":
            #expect(verifies() && claims["aud"]?.stringValue == defaultAud && claims["azp"]?.stringValue != defaultAud)
        case "android-native":
            #expect(verifies() && claims["aud"]?.stringValue == defaultAud && claims["azp"]?.stringValue == ProviderSettings().google.androidClientID)
        case "ios-native-no-server-client":
            let ios = ProviderSettings().google.iosClientID
            #expect(verifies() && claims["aud"]?.stringValue == ios && claims["azp"]?.stringValue == ios)
        case "missing-iat": #expect(verifies() && claims["iat"] == nil && claims["exp"] != nil)
        case "malformed":
            #expect(token.split(separator: ".", omittingEmptySubsequences: false).count == 2)
            #expect(throws: JOSEError.self) { try JWS.decode(token) }
        case "malformed-base64", "malformed-header":
            #expect(token.split(separator: ".", omittingEmptySubsequences: false).count == 3)
            #expect(throws: JOSEError.self) { try JWS.decode(token) }
        case "malformed-trailing-dot":
            #expect(token.hasSuffix(".") && token.split(separator: ".", omittingEmptySubsequences: false).count == 4)
            #expect(throws: JOSEError.self) { try JWS.decode(token) }
        default:
            Issue.record("no shape test for scenario \(name): add one here")
        }
    }

    @Test func aScenarioForTheOtherProviderIsRefusedNamingWhichItAppliesTo() throws {
        #expect(throws: MintError.self) { try Self.mint("string-booleans", .google) }
        #expect(throws: MintError.self) { try MintRequest(json: ["scenario": "expird"]) }
        let request = try MintRequest(json: ["scenario": "expired"])
        let minted = try Self.routes.mint(provider: "apple", request)
        #expect(minted.json["scenario"]?["expected"] == "reject")
        #expect(minted.json["rawNonce"]?.stringValue != nil)
    }

    @Test func replayedJTIRepeatsThePreviousTokensJTI() throws {
        let routes = ProviderFixture().routes
        let first = try routes.mintScenario(Scenario.named("valid")!, provider: .google, request: MintRequest())
        let replay = try routes.mintScenario(Scenario.named("replayed-jti")!, provider: .google, request: MintRequest())
        #expect(first.token.claims["jti"] != nil && replay.token.claims["jti"] == first.token.claims["jti"])
    }
}
