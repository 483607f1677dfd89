import Testing
@testable import UnderstudyJOSE

@Suite struct PEMTests {
    @Test func rsaPrivateKeyRoundTripsThroughPKCS8() throws {
        let pem = TestKeys.rsa.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let read = try JWS.RS256.PrivateKey(pemRepresentation: pem)
        #expect(read.pemRepresentation == pem)
        // Same key: deterministic RS256 signatures agree.
        #expect(try read.signature(for: "m".utf8) == TestKeys.rsa.signature(for: "m".utf8))
    }

    @Test func rsaPublicKeyRoundTripsThroughSPKI() throws {
        let pem = TestKeys.rsa.publicKey.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let read = try JWS.RS256.PublicKey(pemRepresentation: pem)
        #expect(read.modulus == TestKeys.rsa.publicKey.modulus)
        #expect(read.exponent == [1, 0, 1])
        #expect(read.modulus.first != 0)
        #expect(read.pemRepresentation == pem)
    }

    @Test func pkcs1PrivateKeyIsAccepted() throws {
        // An "RSA PRIVATE KEY" (PKCS#1) block: the RFC 7515 A.2 key, converted with
        // `openssl rsa -traditional`, must give the same key as its JWK.
        let jwk = try JWK(json: try Vectors.object("rfc7515-A.2-RS256").object("jwk"))
        let fromJWK = try JWS.RS256.PrivateKey(jwk: jwk)
        let pkcs8 = fromJWK.pemRepresentation
        let pkcs1 = try #require(PEMTests.pkcs1(fromPKCS8: pkcs8))
        #expect(pkcs1.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let read = try JWS.RS256.PrivateKey(pemRepresentation: pkcs1)
        #expect(read.publicKey.modulus == fromJWK.publicKey.modulus)
        #expect(read.pemRepresentation == pkcs8)
    }

    @Test func ecAndEdKeysRoundTrip() throws {
        let ec = try JWS.ES256.PrivateKey(pemRepresentation: TestKeys.ec.pemRepresentation)
        #expect(ec.publicKey.x == TestKeys.ec.publicKey.x)
        let ecPublic = try JWS.ES256.PublicKey(pemRepresentation: TestKeys.ec.publicKey.pemRepresentation)
        #expect(ecPublic.hasSameKey(as: TestKeys.ec.publicKey))
        let ed = try JWS.EdDSA.PrivateKey(pemRepresentation: TestKeys.ed.pemRepresentation)
        #expect(ed.publicKey.rawRepresentation == TestKeys.ed.publicKey.rawRepresentation)
        let edPublic = try JWS.EdDSA.PublicKey(pemRepresentation: TestKeys.ed.publicKey.pemRepresentation)
        #expect(edPublic.rawRepresentation.count == 32)
    }

    @Test func appleP8KeySignsClientSecrets() throws {
        // Apple's .p8 files are PKCS#8 P-256 keys; a client secret is an ES256 JWT.
        let p8 = TestKeys.ec.pemRepresentation
        let key = try JWS.ES256.PrivateKey(pemRepresentation: p8)
        let secret = try JWS.sign(header: ["alg": "ES256", "kid": "ABC123DEFG"],
                                  claims: ["iss": "TEAMID1234", "sub": "com.example.web", "aud": "https://appleid.apple.com"],
                                  key: .es256(key))
        #expect(try JWS.verify(secret, key: .es256(TestKeys.ec.publicKey)).claims?["iss"] == "TEAMID1234")
    }

    @Test(arguments: ["", "not pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"])
    func garbageIsAnError(pem: String) {
        #expect(throws: JOSEError.self) { try JWS.RS256.PrivateKey(pemRepresentation: pem) }
        #expect(throws: JOSEError.self) { try JWS.RS256.PublicKey(pemRepresentation: pem) }
        #expect(throws: JOSEError.self) { try JWS.ES256.PrivateKey(pemRepresentation: pem) }
        #expect(throws: JOSEError.self) { try X509Certificate(pemRepresentation: pem) }
    }

    @Test func keysOfTheWrongTypeAreRefused() {
        #expect(throws: JOSEError.self) { try JWS.RS256.PrivateKey(pemRepresentation: TestKeys.ec.pemRepresentation) }
        #expect(throws: JOSEError.self) { try JWS.RS256.PublicKey(pemRepresentation: TestKeys.ed.publicKey.pemRepresentation) }
        #expect(throws: JOSEError.self) { try JWS.EdDSA.PrivateKey(pemRepresentation: TestKeys.rsa.pemRepresentation) }
        #expect(throws: JOSEError.self) { try JWS.ES256.PublicKey(pemRepresentation: TestKeys.rsa.publicKey.pemRepresentation) }
    }

    @Test func oversizedPEMIsRefused() {
        let huge = "-----BEGIN PRIVATE KEY-----\n" + String(repeating: "A", count: 70_000) + "\n-----END PRIVATE KEY-----\n"
        #expect(throws: JOSEError.self) { try JWS.RS256.PrivateKey(pemRepresentation: huge) }
    }

    @Test func unsupportedKeySizesAreRefused() {
        #expect(throws: JOSEError.self) { try JWS.RS256.PrivateKey(bits: 1024) }
        #expect(throws: JOSEError.self) { try JWS.RS256.PrivateKey(bits: 2049) }
    }
}

extension PEMTests {
    @Test(.enabled(if: OpenSSLCommand.path != nil, "needs the openssl command"))
    func encryptedKeysAreAnErrorNotAPrompt() throws {
        let encrypted = try #require(OpenSSLCommand.run(["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:secret"],
                                                        input: TestKeys.ec.pemRepresentation))
        #expect(encrypted.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        let error = #expect(throws: JOSEError.self) { try JWS.ES256.PrivateKey(pemRepresentation: encrypted) }
        #expect(error?.kind == .invalidPEM)
        #expect(error?.description.contains("unencrypted") == true)
    }
}
