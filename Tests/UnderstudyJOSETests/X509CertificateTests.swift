import Testing
@testable import UnderstudyJOSE

@Suite struct X509CertificateTests {
    static let notBefore: Int64 = 1_764_633_600  // 2025-12-02T00:00:00Z
    static let notAfter: Int64 = notBefore + 14 * 86_400

    @Test func selfSignedCertificateCarriesTheKey() throws {
        let certificate = try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: "federated-signon.system.gserviceaccount.com",
                                                         serialNumber: 0x1234_5678_9ABC, notBefore: Self.notBefore, notAfter: Self.notAfter)
        let publicKey = try certificate.publicKey
        #expect(publicKey.hasSameKey(as: TestKeys.rsa.publicKey))
        #expect(publicKey.modulus == TestKeys.rsa.publicKey.modulus)
        #expect(certificate.isSigned(by: TestKeys.rsa.publicKey))
        #expect(!certificate.isSigned(by: TestKeys.otherRSA.publicKey))
        #expect(certificate.serialNumber == 0x1234_5678_9ABC)
    }

    @Test func pemIsWrappedAt64ColumnsAndRoundTrips() throws {
        let certificate = try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: "understudy", serialNumber: 7,
                                                         notBefore: Self.notBefore, notAfter: Self.notAfter)
        let pem = certificate.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(pem.hasSuffix("\n-----END CERTIFICATE-----\n"))
        let lines = pem.split(separator: "\n").dropFirst().dropLast()
        #expect(lines.dropLast().allSatisfy { $0.count == 64 })
        #expect(lines.last.map { $0.count <= 64 } == true)
        let body = lines.joined()
        #expect(Base64.decode(body) == certificate.derRepresentation)

        let read = try X509Certificate(pemRepresentation: pem)
        #expect(read.derRepresentation == certificate.derRepresentation)
        #expect(try read.publicKey.hasSameKey(as: TestKeys.rsa.publicKey))
        let fromDER = try X509Certificate(derRepresentation: certificate.derRepresentation)
        #expect(fromDER.pemRepresentation == pem)
    }

    @Test func theOpenSSLToolAcceptsIt() throws {
        let certificate = try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: "understudy.test", serialNumber: 42,
                                                         notBefore: Self.notBefore, notAfter: Self.notAfter)
        guard OpenSSLCommand.path != nil else { return }  // the tool is optional; the checks above still ran
        let text = try #require(OpenSSLCommand.run(["x509", "-noout", "-text"], input: certificate.pemRepresentation))
        #expect(text.contains("Version: 3 (0x2)"))
        #expect(text.contains("Serial Number: 42 (0x2a)"))
        #expect(text.contains("Issuer: CN = understudy.test"))
        #expect(text.contains("Subject: CN = understudy.test"))
        #expect(text.contains("sha256WithRSAEncryption"))
        #expect(text.contains("CA:FALSE"))
        #expect(text.contains("TLS Web Client Authentication"))
        #expect(text.contains("Not Before: Dec  2 00:00:00 2025 GMT"))
        #expect(text.contains("Not After : Dec 16 00:00:00 2025 GMT"))
        // The tool extracts the same public key.
        let spki = try #require(OpenSSLCommand.run(["x509", "-noout", "-pubkey"], input: certificate.pemRepresentation))
        #expect(spki == TestKeys.rsa.publicKey.pemRepresentation)
    }

    @Test func invalidParametersAreRefused() {
        #expect(throws: JOSEError.self) {
            try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: "", serialNumber: 1, notBefore: 0, notAfter: 10)
        }
        #expect(throws: JOSEError.self) {
            try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: String(repeating: "a", count: 65), serialNumber: 1, notBefore: 0, notAfter: 10)
        }
        #expect(throws: JOSEError.self) {
            try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: "a", serialNumber: 1, notBefore: 10, notAfter: 10)
        }
        #expect(throws: JOSEError.self) {
            try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: "a", serialNumber: 0, notBefore: 0, notAfter: 10)
        }
        #expect(throws: JOSEError.self) { try X509Certificate(derRepresentation: [0x30, 0x03, 0x02, 0x01, 0x01]) }
    }
}
