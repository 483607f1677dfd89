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

    @Test(.enabled(if: OpenSSLCommand.path != nil, "needs the openssl command-line tool"))
    func theOpenSSLToolAcceptsIt() throws {
        let certificate = try X509Certificate.selfSigned(key: TestKeys.rsa, commonName: "understudy.test", serialNumber: 42,
                                                         notBefore: Self.notBefore, notAfter: Self.notAfter)
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

@Suite struct CertificateAuthorityTests {
    static let notBefore: Int64 = 1_764_633_600  // 2025-12-02T00:00:00Z
    static let notAfter: Int64 = notBefore + 365 * 86_400

    static func issue(dnsNames: [String], ipAddresses: [String] = []) throws -> (ca: X509Certificate, leaf: X509Certificate) {
        let ca = try X509Certificate.certificateAuthority(key: TestKeys.rsa, commonName: "Understudy Local CA", serialNumber: 1,
                                                          notBefore: notBefore, notAfter: notAfter)
        let leaf = try X509Certificate.serverCertificate(publicKey: TestKeys.otherRSA.publicKey, dnsNames: dnsNames,
                                                         ipAddresses: ipAddresses, issuer: ca, issuerKey: TestKeys.rsa,
                                                         serialNumber: 2, notBefore: notBefore, notAfter: notBefore + 90 * 86_400)
        return (ca, leaf)
    }

    @Test func serverCertificateChainsToTheCA() throws {
        let (ca, leaf) = try Self.issue(dnsNames: ["appleid.apple.com", "accounts.google.com", "*.googleapis.com"],
                                        ipAddresses: ["127.0.0.1", "::1"])
        #expect(leaf.isSigned(by: TestKeys.rsa.publicKey))
        #expect(!leaf.isSigned(by: TestKeys.otherRSA.publicKey))
        #expect(try leaf.publicKey.hasSameKey(as: TestKeys.otherRSA.publicKey))
        #expect(ca.isSigned(by: TestKeys.rsa.publicKey))
    }

    @Test(.enabled(if: OpenSSLCommand.path != nil, "needs the openssl command-line tool"))
    func serverCertificatesPassOpenSSLVerify() throws {
        let (ca, leaf) = try Self.issue(dnsNames: ["appleid.apple.com", "accounts.google.com", "*.googleapis.com"],
                                        ipAddresses: ["127.0.0.1", "::1"])
        let at = String(Self.notBefore + 86_400)
        let files = ["ca.pem": ca.pemRepresentation, "leaf.pem": leaf.pemRepresentation]
        for host in ["appleid.apple.com", "accounts.google.com", "oauth2.googleapis.com"] {
            let output = try OpenSSLCommand.run(files: files) { dir in
                ["verify", "-CAfile", dir + "/ca.pem", "-purpose", "sslserver", "-verify_hostname", host, "-attime", at, dir + "/leaf.pem"]
            }
            #expect(output?.contains("OK") == true, "openssl verify should accept \(host)")
        }
        // A name not in the certificate, a time after expiry, and no CA: all refused by the tool.
        let wrongHost = try OpenSSLCommand.run(files: files) { dir in
            ["verify", "-CAfile", dir + "/ca.pem", "-verify_hostname", "example.com", "-attime", at, dir + "/leaf.pem"]
        }
        #expect(wrongHost == nil)
        let expired = try OpenSSLCommand.run(files: files) { dir in
            ["verify", "-CAfile", dir + "/ca.pem", "-attime", String(Self.notBefore + 100 * 86_400), dir + "/leaf.pem"]
        }
        #expect(expired == nil)
        let text = try #require(OpenSSLCommand.run(["x509", "-noout", "-text"], input: leaf.pemRepresentation))
        #expect(text.contains("DNS:appleid.apple.com, DNS:accounts.google.com, DNS:*.googleapis.com, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"))
        #expect(text.contains("Issuer: CN = Understudy Local CA"))
        #expect(text.contains("TLS Web Server Authentication"))
        let caText = try #require(OpenSSLCommand.run(["x509", "-noout", "-text"], input: ca.pemRepresentation))
        #expect(caText.contains("CA:TRUE"))
        #expect(caText.contains("Certificate Sign"))
    }

    @Test func badNamesAndMismatchedIssuerKeysAreRefused() throws {
        #expect(throws: JOSEError.self) { try Self.issue(dnsNames: []) }
        #expect(throws: JOSEError.self) { try Self.issue(dnsNames: ["bad name"]) }
        #expect(throws: JOSEError.self) { try Self.issue(dnsNames: ["a,DNS:evil.example"]) }
        #expect(throws: JOSEError.self) { try Self.issue(dnsNames: ["ok.example"], ipAddresses: ["999.1.1.1"]) }
        #expect(throws: JOSEError.self) { try Self.issue(dnsNames: Array(repeating: "a.example", count: 101)) }
        let ca = try X509Certificate.certificateAuthority(key: TestKeys.rsa, commonName: "CA", serialNumber: 1,
                                                          notBefore: Self.notBefore, notAfter: Self.notAfter)
        #expect(throws: JOSEError.self) {
            try X509Certificate.serverCertificate(publicKey: TestKeys.otherRSA.publicKey, dnsNames: ["a.example"], issuer: ca,
                                                  issuerKey: TestKeys.otherRSA, serialNumber: 2,
                                                  notBefore: Self.notBefore, notAfter: Self.notAfter)
        }
    }

    static func issueP256() throws -> (ca: X509Certificate, leaf: X509Certificate) {
        let ca = try X509Certificate.certificateAuthority(key: TestKeys.ec, commonName: "Understudy Local CA (test)", serialNumber: 7,
                                                          notBefore: notBefore, notAfter: notAfter)
        let leaf = try X509Certificate.serverCertificate(publicKey: TestKeys.otherEC.publicKey, dnsNames: ["appleid.apple.com"],
                                                         ipAddresses: ["127.0.0.1"], issuer: ca, issuerKey: TestKeys.ec,
                                                         serialNumber: 8, notBefore: notBefore, notAfter: notBefore + 30 * 86_400)
        return (ca, leaf)
    }

    @Test func p256AuthorityIssuesP256ServerCertificates() throws {
        let (ca, leaf) = try Self.issueP256()
        #expect(ca.isSigned(by: TestKeys.ec.publicKey))
        #expect(leaf.isSigned(by: TestKeys.ec.publicKey))
        #expect(!leaf.isSigned(by: TestKeys.otherEC.publicKey))
        #expect(throws: JOSEError.self) {
            try X509Certificate.serverCertificate(publicKey: TestKeys.otherEC.publicKey, dnsNames: ["a.example"], issuer: ca,
                                                  issuerKey: TestKeys.otherEC, serialNumber: 2,
                                                  notBefore: Self.notBefore, notAfter: Self.notAfter)
        }
    }

    @Test(.enabled(if: OpenSSLCommand.path != nil, "needs the openssl command-line tool"))
    func p256ServerCertificatesPassOpenSSLVerify() throws {
        let (ca, leaf) = try Self.issueP256()
        let files = ["ca.pem": ca.pemRepresentation, "leaf.pem": leaf.pemRepresentation]
        let output = try OpenSSLCommand.run(files: files) { dir in
            ["verify", "-CAfile", dir + "/ca.pem", "-purpose", "sslserver", "-verify_hostname", "appleid.apple.com",
             "-attime", String(Self.notBefore + 86_400), dir + "/leaf.pem"]
        }
        #expect(output?.contains("OK") == true)
        let text = try #require(OpenSSLCommand.run(["x509", "-noout", "-text"], input: leaf.pemRepresentation))
        #expect(text.contains("Digital Signature") && !text.contains("Key Encipherment"))
        #expect(text.contains("ecdsa-with-SHA256"))
    }
}
