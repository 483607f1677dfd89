import Testing
import UnderstudyJSON
@testable import UnderstudyJOSE

/// The standards' own examples, kept as files under Vectors/.
@Suite struct JWSVectorTests {
    @Test func rfc7515A2VerifiesAndIsReproducedExactly() throws {
        let vector = try Vectors.object("rfc7515-A.2-RS256")
        let jwk = try JWK(json: vector.object("jwk"))
        let compact = vector.string("compact")
        let publicKey = try JWS.RS256.PublicKey(jwk: jwk)

        let decoded = try JWS.verify(compact, key: .rs256(publicKey))
        #expect(decoded.header == ["alg": "RS256"])
        #expect(decoded.claims?["iss"] == "joe")
        #expect(decoded.claims?["exp"] == 1300819380)
        #expect(decoded.claims?["http://example.com/is_root"] == true)

        // PKCS#1 v1.5 is deterministic: signing the same input with the private key gives the
        // RFC's signature byte for byte.
        let privateKey = try JWS.RS256.PrivateKey(jwk: jwk)
        let signature = try privateKey.signature(for: decoded.signingInput.utf8)
        #expect(Base64URL.encode(signature) == String(compact.split(separator: ".")[2]))
        #expect(signature == decoded.signature)
    }

    @Test func rfc7515A3ES256Verifies() throws {
        let vector = try Vectors.object("rfc7515-A.3-ES256")
        let jwk = try JWK(json: vector.object("jwk"))
        let compact = vector.string("compact")
        let decoded = try JWS.verify(compact, key: .es256(try JWS.ES256.PublicKey(jwk: jwk)))
        #expect(decoded.signature.count == 64)
        #expect(decoded.claims?["iss"] == "joe")

        // The private key from the JWK signs tokens its public key accepts.
        let privateKey = try JWS.ES256.PrivateKey(jwk: jwk)
        #expect(Base64URL.encode(privateKey.publicKey.x) == jwk.members["x"]?.stringValue)
        #expect(Base64URL.encode(privateKey.publicKey.y) == jwk.members["y"]?.stringValue)
        let ours = try JWS.sign(header: ["alg": "ES256"], payload: decoded.payload, key: .es256(privateKey))
        _ = try JWS.verify(ours, key: .es256(try JWS.ES256.PublicKey(jwk: jwk)))

        // One bit changed in the signature: rejected.
        var tampered = Array(compact.utf8)
        tampered[tampered.count - 1] = UInt8(ascii: "A")
        #expect(throws: JOSEError.self) {
            try JWS.verify(String(decoding: tampered, as: UTF8.self), key: .es256(try JWS.ES256.PublicKey(jwk: jwk)))
        }
    }

    @Test func rfc7520Section41RS256IsReproducedExactly() throws {
        let vector = try Vectors.object("rfc7520-4.1-RS256")
        let jwk = try JWK(json: vector.object("jwk"))
        let key = try JWS.RS256.PrivateKey(jwk: jwk)
        let compact = try JWS.sign(header: vector.object("protected"), payload: Array(vector.string("payload").utf8),
                                   key: .rs256(key))
        #expect(compact == vector.string("compact"))
        let decoded = try JWS.verify(vector.string("compact"), key: .rs256(try JWS.RS256.PublicKey(jwk: jwk)))
        #expect(decoded.keyID == "bilbo.baggins@hobbiton.example")
        #expect(decoded.claims == nil)  // the payload is prose, not JSON
        #expect(String(decoding: decoded.payload, as: UTF8.self) == vector.string("payload"))
    }

    @Test func rfc7520Section44HS256IsReproducedExactly() throws {
        let vector = try Vectors.object("rfc7520-4.4-HS256")
        let jwk = try JWK(json: vector.object("jwk"))
        guard case .hs256(let secret) = try VerificationKey(jwk: jwk) else {
            Issue.record("an oct JWK should give an HS256 key")
            return
        }
        let compact = try JWS.sign(header: vector.object("protected"), payload: Array(vector.string("payload").utf8),
                                   key: .hs256(secret))
        #expect(compact == vector.string("compact"))
        _ = try JWS.verify(compact, key: .hs256(secret))
        var otherSecret = secret
        otherSecret[0] ^= 1
        #expect(throws: JOSEError.self) { try JWS.verify(compact, key: .hs256(otherSecret)) }
    }

    @Test func rfc8037Ed25519IsReproducedExactly() throws {
        let vector = try Vectors.object("rfc8037-A.4-EdDSA")
        let jwk = try JWK(json: vector.object("jwk"))
        #expect(try jwk.thumbprint() == vector.string("thumbprint"))
        let key = try JWS.EdDSA.PrivateKey(jwk: jwk)
        let compact = try JWS.sign(header: vector.object("protected"), payload: Array(vector.string("payload").utf8),
                                   key: .edDSA(key))
        #expect(compact == vector.string("compact"))
        let decoded = try JWS.verify(compact, key: .edDSA(try JWS.EdDSA.PublicKey(jwk: jwk.publicJWK)))
        #expect(String(decoding: decoded.payload, as: UTF8.self) == "Example of Ed25519 signing")
    }

    @Test func rfc7520ExamplesThisModuleDoesNotSignStillDecode() throws {
        // RFC 7520 4.2 is PS384 and 4.3 is ES512: not algorithms of this module, so verifying
        // them must fail on the algorithm, not crash or pass. The 4.1 key stands in.
        let ps384 = "eyJhbGciOiJQUzM4NCIsImtpZCI6ImJpbGJvLmJhZ2dpbnNAaG9iYml0b24uZXhhbXBsZSJ9.SXTigJlzIGEgZGFuZ2Vyb3VzIGJ1c2luZXNzLCBGcm9kbywgZ29pbmcgb3V0IHlvdXIgZG9vci4gWW91IHN0ZXAgb250byB0aGUgcm9hZCwgYW5kIGlmIHlvdSBkb24ndCBrZWVwIHlvdXIgZmVldCwgdGhlcmXigJlzIG5vIGtub3dpbmcgd2hlcmUgeW91IG1pZ2h0IGJlIHN3ZXB0IG9mZiB0by4.cu22eBqkYDKgIlTpzDXGvaFfz6WGoz7fUDcfT0kkOy42miAh2qyBzk1xEsnk2IpN6-tPid6VrklHkqsGqDqHCdP6O8TTB5dDDItllVo6_1OLPpcbUrhiUSMxbbXUvdvWXzg-UD8biiReQFlfz28zGWVsdiNAUf8ZnyPEgVFn442ZdNqiVJRmBqrYRXe8P_ijQ7p8Vdz0TTrxUeT3lm8d9shnr2lfJT8ImUjvAA2Xez2Mlp8cBE5awDzT0qI0n6uiP1aCN_2_jLAeQTlqRHtfa64QQSUmFAAjVKPbByi7xho0uTOcbH510a6GYmJUAfmWjwZ6oD4ifKo8DYM-X72Eaw"
        let decoded = try JWS.decode(ps384)
        #expect(decoded.algorithm == "PS384")
        let jwk = try JWK(json: try Vectors.object("rfc7520-4.1-RS256").object("jwk"))
        let key = try JWS.RS256.PublicKey(jwk: jwk)
        let error = #expect(throws: JOSEError.self) { try JWS.verify(ps384, key: .ps256(key)) }
        #expect(error?.kind == .algorithmMismatch)
    }

    @Test func rfc7638ThumbprintOfTheRFCKey() throws {
        let vector = try Vectors.object("rfc7638-3.1-thumbprint")
        let jwk = try JWK(json: vector.object("jwk"))
        #expect(try jwk.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(try jwk.thumbprint() == vector.string("thumbprint"))
        // Optional members and their order do not change it.
        var reordered = JSONObject()
        for name in ["kid", "e", "alg", "n", "kty"] { reordered[name] = jwk.members[name] }
        #expect(try JWK(json: reordered).thumbprint() == vector.string("thumbprint"))
        // Neither does building the JWK back from the key.
        let rebuilt = JWK(publicKey: try JWS.RS256.PublicKey(jwk: jwk), kid: "other")
        #expect(try rebuilt.thumbprint() == vector.string("thumbprint"))
    }
}
