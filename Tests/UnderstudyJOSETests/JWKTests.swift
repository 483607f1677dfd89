import Testing
import UnderstudyJSON
@testable import UnderstudyJOSE

@Suite struct JWKTests {
    @Test func rfc7517AppendixA1PublicKeySet() throws {
        let set = try JWKSet(json: try Vectors.load("rfc7517-A.1-public-keys"))
        #expect(set.keys.count == 2)
        let ec = try #require(set.key(withID: "1"))
        #expect(ec.kty == "EC")
        #expect(ec.use == "enc")
        // An encryption key is not accepted as a signature key.
        #expect(throws: JOSEError.self) { try JWS.ES256.PublicKey(jwk: ec) }
        var asSignatureKey = ec
        asSignatureKey.use = "sig"
        let ecKey = try JWS.ES256.PublicKey(jwk: asSignatureKey)
        #expect(Base64URL.encode(ecKey.x) == "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4")
        #expect(Base64URL.encode(ecKey.y) == "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM")

        let rsa = try #require(set.key(withID: "2011-04-29"))
        #expect(rsa.alg == "RS256")
        let rsaKey = try JWS.RS256.PublicKey(jwk: rsa)
        #expect(rsaKey.keySizeInBits == 2048)
        #expect(rsaKey.exponent == [1, 0, 1])
        #expect(Base64URL.encode(rsaKey.modulus) == rsa.members["n"]?.stringValue)
        #expect(set.key(withID: "missing") == nil)
        // Serialized back, members keep their order.
        #expect(set.json["keys"]?.arrayValue?[1].objectValue?.keys == ["kty", "n", "e", "alg", "kid"])
    }

    @Test func rfc7517AppendixBCertificateChainMatchesTheKey() throws {
        let jwk = try JWK(jsonValue: try Vectors.load("rfc7517-B-x5c"))
        let x5c = try #require(jwk.members["x5c"]?.arrayValue?.first?.stringValue)
        let certificate = try X509Certificate(derRepresentation: try #require(Base64.decode(x5c)))
        let fromCertificate = try certificate.publicKey
        let fromJWK = try JWS.RS256.PublicKey(jwk: jwk)
        #expect(fromCertificate.modulus == fromJWK.modulus)
        #expect(fromCertificate.hasSameKey(as: fromJWK))
        #expect(certificate.derRepresentation == Base64.decode(x5c))
    }

    @Test func appleOrderForGeneratedKeys() throws {
        let key = try JWS.RS256.PrivateKey()
        let jwk = JWK(publicKey: key.publicKey, kid: "W6WcOKB")
        #expect(jwk.members.keys == ["kty", "kid", "use", "alg", "n", "e"])
        #expect(jwk.members["e"] == "AQAB")
        #expect(!jwk.isPrivate)
        #expect(try JWS.RS256.PublicKey(jwk: try JWK(jsonValue: jwk.json)).modulus == key.publicKey.modulus)

        let ec = try JWS.ES256.PrivateKey()
        let ecJWK = JWK(publicKey: ec.publicKey, kid: "k1")
        #expect(ecJWK.members.keys == ["kty", "kid", "use", "alg", "crv", "x", "y"])
        #expect(try JWS.ES256.PublicKey(jwk: ecJWK).hasSameKey(as: ec.publicKey))
    }

    @Test func settersEditMembersInPlace() throws {
        var jwk = try JWK(json: ["kty": "oct", "k": "AAAA"])
        jwk.kid = "a"
        jwk.alg = "HS256"
        #expect(jwk.members.keys == ["kty", "k", "kid", "alg"])
        jwk.kid = nil
        #expect(jwk.members.keys == ["kty", "k", "alg"])
        #expect(jwk.isPrivate)
    }

    static let invalid: [JSONObject] = [
        [:],
        ["kty": 1],
        ["kty": "XYZ"],
        ["kty": "RSA", "n": "AQAB"],
        ["kty": "RSA", "n": "AQ=B", "e": "AQAB"],
        ["kty": "EC", "crv": "P-256", "x": "AAAA"],
        ["kty": "OKP", "crv": "Ed25519"],
        ["kty": "oct"],
        ["kty": "oct", "k": "AAAA", "kid": 5],
        ["kty": "oct", "k": "AAAA", "x5c": "notanarray"],
        ["kty": "RSA", "n": "AQAB", "e": "AQAB", "d": 3],
    ]

    @Test(arguments: invalid)
    func malformedJWKsAreRejected(json: JSONObject) {
        let error = #expect(throws: JOSEError.self) { try JWK(json: json) }
        #expect(error?.kind == .invalidJWK)
    }

    @Test func keysThatAreNotUsableAreRejected() throws {
        // A 1024-bit modulus is below RFC 7518's minimum.
        let small = Base64URL.encode([0xC0] + [UInt8](repeating: 0x11, count: 127))
        let error = #expect(throws: JOSEError.self) { try JWS.RS256.PublicKey(jwk: try JWK(json: ["kty": "RSA", "n": .string(small), "e": "AQAB"])) }
        #expect(error?.kind == .invalidKey)
        // A point that is not on P-256.
        let offCurve = try JWK(json: ["kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode([UInt8](repeating: 1, count: 32))),
                                      "y": .string(Base64URL.encode([UInt8](repeating: 2, count: 32)))])
        #expect(throws: JOSEError.self) { try JWS.ES256.PublicKey(jwk: offCurve) }
        // The wrong curve.
        var p384 = offCurve
        p384.members["crv"] = "P-384"
        #expect(throws: JOSEError.self) { try JWS.ES256.PublicKey(jwk: p384) }
        // An RSA key used as an EC key and the other way round.
        let rsa = try JWK(json: try Vectors.object("rfc7638-3.1-thumbprint").object("jwk"))
        #expect(throws: JOSEError.self) { try JWS.ES256.PublicKey(jwk: rsa) }
        #expect(throws: JOSEError.self) { try JWS.RS256.PublicKey(jwk: offCurve) }
        // Private members that do not belong together.
        var mixed = try Vectors.object("rfc7515-A.2-RS256").object("jwk")
        mixed["d"] = try Vectors.object("rfc7520-4.1-RS256").object("jwk")["d"]
        #expect(throws: JOSEError.self) { try JWS.RS256.PrivateKey(jwk: try JWK(json: mixed)) }
    }

    @Test func jwkSetSkipsUnknownKeyTypesAndLimitsSize() throws {
        let set = try JWKSet(json: ["keys": [["kty": "future", "x": 1], ["kty": "oct", "k": "AAAA", "kid": "h"]]])
        #expect(set.keys.map(\.kid) == ["h"])
        #expect(throws: JOSEError.self) { try JWKSet(json: ["keys": "no"]) }
        #expect(throws: JOSEError.self) { try JWKSet(json: ["nokeys": []]) }
        let many = JSONValue.array(Array(repeating: ["kty": "oct", "k": "AAAA"], count: JWKSet.maximumKeyCount + 1))
        #expect(throws: JOSEError.self) { try JWKSet(json: ["keys": many]) }
    }

    @Test func publicJWKDropsPrivateMembers() throws {
        let jwk = try JWK(json: try Vectors.object("rfc7520-4.1-RS256").object("jwk"))
        #expect(jwk.isPrivate)
        let published = jwk.publicJWK
        #expect(!published.isPrivate)
        #expect(published.members.keys == ["kty", "kid", "use", "n", "e"])
    }
}
