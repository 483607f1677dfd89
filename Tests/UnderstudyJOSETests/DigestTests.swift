import Testing
@testable import UnderstudyJOSE

@Suite struct DigestTests {
    @Test func sha256KnownAnswers() {
        // FIPS 180-2 appendix B.1 and the empty string.
        #expect(Hex.encode(SHA256.hash("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        // A non-contiguous sequence gives the same digest.
        #expect(SHA256.hash("abc".utf8.lazy.map { $0 }) == SHA256.hash(Array("abc".utf8)))
    }

    @Test func appleHashedNonceIsHexSHA256() {
        // What Sign in with Apple puts in "nonce": hex SHA-256 of the raw nonce.
        #expect(Hex.encode(SHA256.hash("abc".utf8)).count == 64)
    }

    @Test func hmacSHA256RFC4231TestCases() {
        // RFC 4231 test case 1 and 2.
        let key1 = [UInt8](repeating: 0x0b, count: 20)
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: "Hi There".utf8, key: key1))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: "what do ya want for nothing?".utf8, key: "Jefe".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func secureRandomBytesHaveTheLengthAndDiffer() {
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
        #expect(SecureRandom.bytes(0).isEmpty)
    }
}

@Suite struct OIDCHashTests {
    @Test func oidcCoreAppendixExamples() throws {
        let vector = try Vectors.object("oidc-core-A.3-A.4-hashes")
        let alg = try #require(JWSAlgorithm(rawValue: vector.string("alg")))
        #expect(alg.oidcHalfHash(of: vector.string("access_token")) == vector.string("at_hash"))
        #expect(alg.oidcHalfHash(of: vector.string("code")) == vector.string("c_hash"))
        #expect(JWSAlgorithm.es256.oidcHalfHash(of: vector.string("code")) == vector.string("c_hash"))
        #expect(JWSAlgorithm.none.oidcHalfHash(of: "x") == nil)
    }
}
