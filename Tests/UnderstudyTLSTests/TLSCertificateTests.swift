import Testing
import UnderstudyTLS

@Suite struct TLSCertificateTests {
    @Test func readsNamesValidityAndFingerprint() throws {
        let leaf = try TestCredentials.certificate("localhost")
        #expect(leaf.subjectCommonName == "localhost")
        #expect(leaf.issuerCommonName == "Understudy TLS Test CA")
        #expect(leaf.dnsNames == ["localhost"])
        #expect(leaf.ipAddresses == ["127.0.0.1", "::1"])
        #expect(!leaf.isCertificateAuthority)
        #expect(leaf.notValidBefore > 1_700_000_000 && leaf.notValidAfter > leaf.notValidBefore + 50 * 365 * 86_400)
        let fingerprint = leaf.sha256Fingerprint
        #expect(fingerprint.count == 32 * 3 - 1 && fingerprint.split(separator: ":").count == 32)
        #expect(try TestCredentials.certificate("test-ca").isCertificateAuthority)
    }

    @Test func pemAndDERRoundTrip() throws {
        let leaf = try TestCredentials.certificate("apple")
        #expect(try TLSCertificate(derRepresentation: leaf.derRepresentation).derRepresentation == leaf.derRepresentation)
        #expect(try TLSCertificate(pemRepresentation: leaf.pemRepresentation).sha256Fingerprint == leaf.sha256Fingerprint)
        let bundle = try TestCredentials.text("apple.pem") + TestCredentials.text("test-ca.pem")
        let chain = try TLSCertificate.certificates(pemRepresentation: bundle)
        #expect(chain.map(\.subjectCommonName) == ["apple", "Understudy TLS Test CA"])
    }

    @Test func verifiesAgainstTheTrustRootAndTheHostname() throws {
        let root = try TestCredentials.certificate("test-ca")
        let leaf = try TestCredentials.certificate("apple")
        try leaf.verify(trustRoots: [root], hostname: "appleid.apple.com")
        try leaf.verify(trustRoots: [root], hostname: "account.apple.com")
        try TestCredentials.certificate("localhost").verify(trustRoots: [root], hostname: "127.0.0.1")
        let wrongHost = #expect(throws: TLSError.self) { try leaf.verify(trustRoots: [root], hostname: "www.googleapis.com") }
        #expect(wrongHost?.kind == .certificateVerificationFailed)
        #expect(wrongHost?.reason == "hostname mismatch")
        let wrongRoot = #expect(throws: TLSError.self) { try leaf.verify(trustRoots: [TestCredentials.certificate("other-ca")]) }
        #expect(wrongRoot?.reason == "unable to get local issuer certificate")
        let expired = #expect(throws: TLSError.self) { try leaf.verify(trustRoots: [root], time: leaf.notValidAfter + 1) }
        #expect(expired?.reason == "certificate has expired")
    }

    @Test func badInputIsAnErrorNotACrash() throws {
        #expect(throws: TLSError.self) { try TLSCertificate(pemRepresentation: "") }
        #expect(throws: TLSError.self) { try TLSCertificate(pemRepresentation: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") }
        #expect(throws: TLSError.self) { try TLSCertificate(derRepresentation: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: TLSError.self) { try TLSCertificate(derRepresentation: []) }
        #expect(throws: TLSError.self) { try TLSPrivateKey(pemRepresentation: "not a key") }
        let encrypted = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIGbMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAhQ\n-----END ENCRYPTED PRIVATE KEY-----\n"
        #expect(throws: TLSError.self) { try TLSPrivateKey(pemRepresentation: encrypted) }
    }

    @Test func anIdentityNeedsTheLeafsOwnKey() throws {
        let leaf = try TestCredentials.certificate("apple")
        let otherKey = try TLSPrivateKey(pemRepresentation: TestCredentials.text("google.key"))
        let error = #expect(throws: TLSError.self) { try TLSIdentity(certificateChain: [leaf], privateKey: otherKey) }
        #expect(error?.kind == .invalidPrivateKey)
        #expect(throws: TLSError.self) { try TLSIdentity(certificateChain: [], privateKey: otherKey) }
        let identity = try TestCredentials.identity("apple")
        #expect(identity.certificateChain.count == 2)
        #expect(identity.leaf.dnsNames == ["appleid.apple.com", "account.apple.com"])
    }
}
