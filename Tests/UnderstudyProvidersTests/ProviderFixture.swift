import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

/// Providers over freshly generated keys, at a pinned time.
struct ProviderFixture {
    static let now: Int64 = 1_800_000_000
    // Key generation is the slow part: share one set across tests.
    static let appleKeys = try! KeyRing(keys: (0..<3).map { ProviderKey(kid: "APPLEKEY0\($0)", privateKey: try! JWS.RS256.PrivateKey()) })
    static let googleKeys = try! KeyRing(keys: (0..<2).map {
        ProviderKey(kid: String(repeating: "ab", count: 19) + "0\($0)", privateKey: try! JWS.RS256.PrivateKey())
    })

    var settings = ProviderSettings()

    init(_ configure: (inout ProviderSettings) -> Void = { _ in }) {
        settings.identities = [TestIdentity(email: "alice@example.com", name: "Alice Example", givenName: "Alice", familyName: "Example")]
        configure(&settings)
    }

    var apple: AppleProvider { AppleProvider(settings: settings, keys: Self.appleKeys) }
    var google: GoogleProvider { try! GoogleProvider(settings: settings, keys: Self.googleKeys, now: Self.now) }
    var routes: ProviderRoutes { ProviderRoutes(apple: apple, google: google, clock: { Self.now }) }

    static func request(_ json: JSONValue) throws -> MintRequest { try MintRequest(json: json) }

    /// Verifies the token with the ring's key for its kid and returns the claims.
    static func verifiedClaims(_ token: String, ring: KeyRing) throws -> (header: JSONObject, claims: JSONObject) {
        let decoded = try JWS.decode(token)
        let kid = try #require(decoded.header["kid"]?.stringValue)
        let key = try #require(ring.publicKey(kid: kid))
        let verified = try JWS.verify(token, key: .rs256(key))
        return (verified.header, try #require(verified.claims))
    }
}

import Testing
