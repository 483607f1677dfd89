import Testing
import UnderstudyJSON
@testable import UnderstudyJOSE

/// Keys generated once for the suite (RSA generation is slow).
enum TestKeys {
    static let rsa = try! JWS.RS256.PrivateKey()
    static let otherRSA = try! JWS.RS256.PrivateKey()
    static let ec = try! JWS.ES256.PrivateKey()
    static let otherEC = try! JWS.ES256.PrivateKey()
    static let ed = try! JWS.EdDSA.PrivateKey()
    static let otherEd = try! JWS.EdDSA.PrivateKey()
    static let secret = SecureRandom.bytes(32)

    static let signing: [SigningKey] = [.rs256(rsa), .ps256(rsa), .es256(ec), .edDSA(ed), .hs256(secret)]
    static let others: [SigningKey] = [.rs256(otherRSA), .ps256(otherRSA), .es256(otherEC), .edDSA(otherEd), .hs256(SecureRandom.bytes(32))]
}

@Suite struct JWSTests {
    static let claims: JSONObject = ["iss": "https://appleid.apple.com", "aud": "com.example.app", "sub": "001234.abc",
                                     "iat": 1_700_000_000, "exp": 1_700_086_400, "email_verified": true]

    static func header(_ key: SigningKey) -> JSONObject {
        ["kid": "key-1", "alg": .string(key.algorithm.rawValue), "typ": "JWT"]
    }

    @Test(arguments: 0..<5)
    func signThenVerifyRoundTrips(index: Int) throws {
        let key = TestKeys.signing[index]
        let token = try JWS.sign(header: Self.header(key), claims: Self.claims, key: key)
        let decoded = try JWS.verify(token, key: key.verificationKey)
        #expect(decoded.claims == Self.claims)
        #expect(decoded.header.keys == ["kid", "alg", "typ"])  // order as given
        #expect(decoded.keyID == "key-1")
        #expect(String(token.split(separator: ".")[0]) == Base64URL.encode(JSONValue.object(Self.header(key)).serializedBytes()))
        switch key {
        case .es256, .edDSA: #expect(decoded.signature.count == 64)
        case .rs256, .ps256: #expect(decoded.signature.count == 256)
        case .hs256: #expect(decoded.signature.count == 32)
        }
    }

    @Test func rs256IsDeterministicAndPS256IsNot() throws {
        let a = try TestKeys.rsa.signature(for: "x".utf8)
        #expect(try TestKeys.rsa.signature(for: "x".utf8) == a)
        let p = try TestKeys.rsa.pssSignature(for: "x".utf8)
        #expect(try TestKeys.rsa.pssSignature(for: "x".utf8) != p)
        // The two paddings are not interchangeable.
        #expect(TestKeys.rsa.publicKey.isValidSignature(a, for: "x".utf8))
        #expect(!TestKeys.rsa.publicKey.isValidPSSSignature(a, for: "x".utf8))
        #expect(!TestKeys.rsa.publicKey.isValidSignature(p, for: "x".utf8))
        #expect(TestKeys.rsa.publicKey.isValidPSSSignature(p, for: "x".utf8))
    }

    @Test(arguments: 0..<5)
    func tamperedPayloadIsRejected(index: Int) throws {
        let key = TestKeys.signing[index]
        let token = try JWS.sign(header: Self.header(key), claims: Self.claims, key: key)
        var parts = token.split(separator: ".").map(String.init)
        var forged = Self.claims
        forged["sub"] = "someone-else"
        parts[1] = Base64URL.encode(JSONValue.object(forged).serializedBytes())
        let error = #expect(throws: JOSEError.self) { try JWS.verify(parts.joined(separator: "."), key: key.verificationKey) }
        #expect(error?.kind == .invalidSignature)
    }

    @Test(arguments: 0..<5)
    func wrongKeyIsRejected(index: Int) throws {
        let key = TestKeys.signing[index]
        let token = try JWS.sign(header: Self.header(key), claims: Self.claims, key: key)
        let error = #expect(throws: JOSEError.self) { try JWS.verify(token, key: TestKeys.others[index].verificationKey) }
        #expect(error?.kind == .invalidSignature)
    }

    @Test func headerAlgorithmMustMatchTheKey() throws {
        let token = try JWS.sign(header: ["alg": "RS256"], claims: Self.claims, key: .rs256(TestKeys.rsa))
        // An RS256 token checked with an ES256 or PS256 key: refused on the algorithm.
        for key in [VerificationKey.es256(TestKeys.ec.publicKey), .ps256(TestKeys.rsa.publicKey)] {
            let error = #expect(throws: JOSEError.self) { try JWS.verify(token, key: key) }
            #expect(error?.kind == .algorithmMismatch)
        }
        // Signing refuses a header that does not name the key's algorithm, or names none.
        #expect(throws: JOSEError.self) { try JWS.sign(header: ["alg": "HS256"], claims: Self.claims, key: .rs256(TestKeys.rsa)) }
        #expect(throws: JOSEError.self) { try JWS.sign(header: ["typ": "JWT"], claims: Self.claims, key: .rs256(TestKeys.rsa)) }
    }

    @Test func unsignedTokensAreNeverAccepted() throws {
        let payload = Base64URL.encode(JSONValue.object(Self.claims).serializedBytes())
        for header: JSONObject in [["alg": "none"], ["alg": "None"], ["typ": "JWT"], ["alg": 1]] {
            let token = Base64URL.encode(JSONValue.object(header).serializedBytes()) + "." + payload + "."
            for key in TestKeys.signing.map(\.verificationKey) {
                let error = #expect(throws: JOSEError.self) { try JWS.verify(token, key: key) }
                #expect(error?.kind == .algorithmMismatch)
            }
        }
        // Even with the right alg, an empty signature fails.
        let token = Base64URL.encode(JSONValue.object(["alg": "RS256"]).serializedBytes()) + "." + payload + "."
        let error = #expect(throws: JOSEError.self) { try JWS.verify(token, key: .rs256(TestKeys.rsa.publicKey)) }
        #expect(error?.kind == .invalidSignature)
    }

    @Test func hs256SignedWithThePublicKeyIsRejected() throws {
        // The classic confusion: an attacker HMACs a token with the RSA public key's PEM (or its
        // modulus) as the secret and sets alg HS256. A verifier holding the RSA key refuses it.
        let publicKey = TestKeys.rsa.publicKey
        for secret in [Array(publicKey.pemRepresentation.utf8), publicKey.modulus] {
            let forged = try JWS.sign(header: ["alg": "HS256"], claims: Self.claims, key: .hs256(secret))
            let error = #expect(throws: JOSEError.self) { try JWS.verify(forged, key: .rs256(publicKey)) }
            #expect(error?.kind == .algorithmMismatch)
            #expect(throws: JOSEError.self) { try JWS.verify(forged, key: .ps256(publicKey)) }
        }
        // Rewriting the header of a real RS256 token to HS256 is refused the same way.
        let real = try JWS.sign(header: ["alg": "RS256"], claims: Self.claims, key: .rs256(TestKeys.rsa))
        let parts = real.split(separator: ".")
        let rewritten = Base64URL.encode(#"{"alg":"HS256"}"#.utf8) + "." + parts[1] + "." + parts[2]
        #expect(throws: JOSEError.self) { try JWS.verify(rewritten, key: .rs256(publicKey)) }
    }

    @Test func criticalHeaderExtensionsAreRejected() throws {
        let token = try JWS.sign(header: ["alg": "ES256", "crit": ["exp"], "exp": 1], claims: Self.claims, key: .es256(TestKeys.ec))
        let error = #expect(throws: JOSEError.self) { try JWS.verify(token, key: .es256(TestKeys.ec.publicKey)) }
        #expect(error?.kind == .unsupportedHeader)
    }

    static let malformed: [String] = [
        "",
        ".",
        "..",
        "abc",
        "a.b",
        "a.b.c.d",
        "eyJhbGciOiJSUzI1NiJ9.e30.sig.x.y",
        "eyJhbGciOiJSUzI1NiJ9.e30.sig.x.y.z",
        ".e30.c2ln",
        "eyJhbGciOiJSUzI1NiJ9=.e30.c2ln",
        "eyJhbGciOiJSUzI1NiJ9.e30=.c2ln",
        "eyJhbGciOiJSUzI1NiJ9.e30.c2ln=",
        "eyJhbGciOiJSUzI1NiJ9.e3+0.c2ln",
        "eyJhbGciOiJSUzI1NiJ9.e30.c2l/",
        "eyJhbGciOiJSUzI1NiJ9 .e30.c2ln",
        "bm90IGpzb24.e30.c2ln",  // header "not json"
        "WzFd.e30.c2ln",  // header [1]
        "eyJhbGciOiJSUzI1NiJ9.e30.A",  // impossible base64 length
    ]

    @Test(arguments: malformed)
    func malformedCompactStringsAreRejected(token: String) {
        let error = #expect(throws: JOSEError.self) { try JWS.decode(token) }
        #expect(error?.kind == .malformedToken)
        #expect(throws: JOSEError.self) { try JWS.verify(token, key: .rs256(TestKeys.rsa.publicKey)) }
    }

    @Test func hugeTokensAreRefusedBeforeDecoding() {
        let header = Base64URL.encode(#"{"alg":"RS256"}"#.utf8)
        let huge = header + "." + String(repeating: "A", count: JWS.maximumTokenLength) + ".c2ln"
        let error = #expect(throws: JOSEError.self) { try JWS.decode(huge) }
        #expect(error?.kind == .tokenTooLarge)
        #expect(throws: JOSEError.self) { try JWS.verify(huge, key: .rs256(TestKeys.rsa.publicKey)) }
        let manyDots = String(repeating: ".", count: 100_000)
        #expect(throws: JOSEError.self) { try JWS.decode(manyDots) }
    }

    @Test func decodeWithoutVerifyingGivesTheParts() throws {
        let token = try JWS.sign(header: ["alg": "HS256", "kid": "k"], payload: Array("plain".utf8), key: .hs256(TestKeys.secret))
        let decoded = try JWS.decode(token)
        #expect(decoded.algorithm == "HS256")
        #expect(decoded.payload == Array("plain".utf8))
        #expect(decoded.claims == nil)
        #expect(decoded.signingInput == token.split(separator: ".").prefix(2).joined(separator: "."))
        // An empty payload is allowed (RFC 7515 allows it).
        let empty = try JWS.sign(header: ["alg": "HS256"], payload: [], key: .hs256(TestKeys.secret))
        #expect(try JWS.verify(empty, key: .hs256(TestKeys.secret)).payload.isEmpty)
    }

    @Test func errorMessagesSayWhatToDoAndCarryNoKeyMaterial() throws {
        let token = try JWS.sign(header: ["alg": "RS256"], claims: Self.claims, key: .rs256(TestKeys.rsa))
        let error = #expect(throws: JOSEError.self) { try JWS.verify(token, key: .rs256(TestKeys.otherRSA.publicKey)) }
        let message = error?.description ?? ""
        #expect(message.contains("RS256"))
        #expect(!message.contains(Base64URL.encode(TestKeys.otherRSA.publicKey.modulus).prefix(20)))
        let pem = TestKeys.rsa.pemRepresentation
        let pemError = #expect(throws: JOSEError.self) { try JWS.ES256.PrivateKey(pemRepresentation: pem) }
        #expect(pemError?.kind == .invalidKey)
        let pemMessage = pemError?.description ?? ""
        #expect(pemMessage.contains("EC key"))
        #expect(pemMessage.contains("MII") == false)
    }

    @Test func signingIsSafeFromManyThreadsAtOnce() async throws {
        let key = TestKeys.rsa
        let ec = TestKeys.ec
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<16 {
                group.addTask {
                    var ok = true
                    for j in 0..<8 {
                        let message = Array("message \(i) \(j)".utf8)
                        let rsaSignature = try key.signature(for: message)
                        let ecSignature = try ec.signature(for: message)
                        if !key.publicKey.isValidSignature(rsaSignature, for: message) { ok = false }
                        if !ec.publicKey.isValidSignature(ecSignature, for: message) { ok = false }
                    }
                    return ok
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 })
    }

    @Test func es256SignaturesAreRawAndDERIsRejected() throws {
        let message = Array("payload".utf8)
        let raw = try TestKeys.ec.signature(for: message)
        #expect(raw.count == 64)
        #expect(TestKeys.ec.publicKey.isValidSignature(raw, for: message))
        // The DER form OpenSSL uses internally is not a JOSE signature.
        let der = try #require(ECDSASignature.derFromRaw(raw, coordinateSize: 32))
        #expect(der.first == 0x30)
        #expect(!TestKeys.ec.publicKey.isValidSignature(der, for: message))
        #expect(ECDSASignature.rawFromDER(der, coordinateSize: 32) == raw)
        #expect(!TestKeys.ec.publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: message))
        #expect(!TestKeys.ec.publicKey.isValidSignature(Array(raw.prefix(63)), for: message))
    }
}
