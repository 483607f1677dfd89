import Testing
@testable import UnderstudyJOSE

/// Signatures checked by an independent implementation: the `openssl` command-line tool. RFC 7520
/// has no PS256 example (4.2 is PS384), so this is where PS256's parameters (MGF1 SHA-256, salt 32)
/// are pinned.
@Suite(.enabled(if: OpenSSLCommand.path != nil, "needs the openssl command-line tool"))
struct InteropTests {
    static let message = Array("eyJhbGciOiJQUzI1NiJ9.eyJzdWIiOiIxMjMifQ".utf8)

    @Test func ps256WithSalt32VerifiesWithTheOpenSSLTool() throws {
        let signature = try TestKeys.rsa.pssSignature(for: Self.message)
        let pss = ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32", "-sigopt", "rsa_mgf1_md:sha256"]
        let verified = try #require(try OpenSSLCommand.verify(publicKeyPEM: TestKeys.rsa.publicKey.pemRepresentation,
                                                                    message: Self.message, signature: signature, extraArguments: pss))
        #expect(verified)
        // A salt length other than 32 does not verify: the parameters are really pinned.
        let salt20 = ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:20", "-sigopt", "rsa_mgf1_md:sha256"]
        #expect(try OpenSSLCommand.verify(publicKeyPEM: TestKeys.rsa.publicKey.pemRepresentation,
                                          message: Self.message, signature: signature, extraArguments: salt20) == false)
    }

    @Test func rs256VerifiesWithTheOpenSSLTool() throws {
        let signature = try TestKeys.rsa.signature(for: Self.message)
        let verified = try #require(try OpenSSLCommand.verify(publicKeyPEM: TestKeys.rsa.publicKey.pemRepresentation,
                                                                    message: Self.message, signature: signature))
        #expect(verified)
    }

    @Test func es256VerifiesWithTheOpenSSLToolOnceConvertedToDER() throws {
        let raw = try TestKeys.ec.signature(for: Self.message)
        let der = try #require(ECDSASignature.derFromRaw(raw, coordinateSize: 32))
        let verified = try #require(try OpenSSLCommand.verify(publicKeyPEM: TestKeys.ec.publicKey.pemRepresentation,
                                                                    message: Self.message, signature: der))
        #expect(verified)
    }
}
