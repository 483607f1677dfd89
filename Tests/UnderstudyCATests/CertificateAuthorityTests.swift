import Foundation
import Testing
import UnderstudyCA
import UnderstudyTLS

@Suite struct CertificateAuthorityTests {
    static let start: Int64 = 1_796_300_000  // 2026-12-03

    // MARK: Creating and loading

    @Test func aNewCAIsCreatedWithPrivateModesAndCAExtensions() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let directory = scratch.path + "/data/understudy/ca"
        let ca = try CertificateAuthority(directory: directory, hostname: "devbox", clock: TestClock(Self.start).read)
        #expect(ca.wasCreated)
        #expect(ca.certificatePath == directory + "/ca.pem")
        #expect(ca.privateKeyPath == directory + "/ca.key")
        #expect(try Scratch.mode(ca.privateKeyPath) == 0o600)
        #expect(try Scratch.mode(directory) == 0o700)
        #expect(try Scratch.mode(scratch.path + "/data") == 0o700)
        #expect(try String(contentsOfFile: ca.certificatePath, encoding: .utf8) == ca.certificatePEM)
        let key = try String(contentsOfFile: ca.privateKeyPath, encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))

        let certificate = ca.certificate
        #expect(certificate.isCertificateAuthority)
        #expect(certificate.subjectCommonName == "Understudy Local CA (devbox, 2026-12-03)")
        #expect(certificate.issuerCommonName == certificate.subjectCommonName)
        #expect(certificate.notValidBefore == Self.start - 3600)
        #expect(certificate.notValidAfter == Self.start + 3650 * 86_400)
        try certificate.verify(trustRoots: [certificate], time: Self.start)  // self-signed, valid now
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(entries == ["ca.key", "ca.lock", "ca.pem"], "no temporary file is left behind")
    }

    @Test func everyCAIsDifferent() throws {
        let one = Scratch(), two = Scratch()
        defer { one.remove(); two.remove() }
        let a = try CertificateAuthority(directory: one.path)
        let b = try CertificateAuthority(directory: two.path)
        #expect(a.certificate.sha256Fingerprint != b.certificate.sha256Fingerprint)
        #expect(try String(contentsOfFile: a.privateKeyPath, encoding: .utf8) != String(contentsOfFile: b.privateKeyPath, encoding: .utf8))
    }

    @Test func reopeningLoadsTheSameCA() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let first = try CertificateAuthority(directory: scratch.path)
        let leaf = try first.identity(forServerName: "appleid.apple.com").leaf
        let again = try CertificateAuthority(directory: scratch.path + "/")
        #expect(!again.wasCreated)
        #expect(again.directory == scratch.path)
        #expect(again.certificate.sha256Fingerprint == first.certificate.sha256Fingerprint)
        #expect(again.certificatePEM == first.certificatePEM)
        // Leaves of either verify against the other: same key.
        try leaf.verify(trustRoots: [again.certificate], hostname: "appleid.apple.com")
        try again.identity(forServerName: "appleid.apple.com").leaf.verify(trustRoots: [first.certificate], hostname: "appleid.apple.com")
    }

    @Test func anEmptyExistingDirectoryIsUsed() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let ca = try CertificateAuthority(directory: scratch.path)
        #expect(ca.wasCreated)
    }

    @Test func brokenDirectoriesAreClearErrorsNamingTheFile() throws {
        let source = Scratch()
        defer { source.remove() }
        let good = try CertificateAuthority(directory: source.path)
        let goodKey = try String(contentsOfFile: good.privateKeyPath, encoding: .utf8)
        let other = Scratch()
        defer { other.remove() }
        let otherCA = try CertificateAuthority(directory: other.path)

        func failure(_ files: [String: (String, Int)]) throws -> CertificateAuthorityError? {
            let scratch = Scratch()
            defer { scratch.remove() }
            try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
            for (name, (text, mode)) in files { try scratch.write(name, text, mode: mode) }
            do {
                _ = try CertificateAuthority(directory: scratch.path)
                return nil
            } catch {
                #expect(error.path?.hasPrefix(scratch.path) == true, "\(error)")
                return error
            }
        }

        let unrelated = try #require(try failure(["notes.txt": ("hello", 0o644)]))
        #expect(unrelated.kind == .directoryNotEmpty)
        #expect(unrelated.description.contains("notes.txt") && unrelated.description.contains("--ca DIR"))

        let keyOnly = try #require(try failure(["ca.key": (goodKey, 0o600)]))
        #expect(keyOnly.kind == .incomplete)
        #expect(keyOnly.path?.hasSuffix("/ca.pem") == true)
        #expect(keyOnly.description.contains("Restore ca.pem, or delete"))

        let certificateOnly = try #require(try failure(["ca.pem": (good.certificatePEM, 0o644)]))
        #expect(certificateOnly.kind == .incomplete)
        #expect(certificateOnly.path?.hasSuffix("/ca.key") == true)

        let badKey = try #require(try failure(["ca.key": ("garbage", 0o600), "ca.pem": (good.certificatePEM, 0o644)]))
        #expect(badKey.kind == .invalidPrivateKey)
        #expect(badKey.path?.hasSuffix("/ca.key") == true)

        let openKey = try #require(try failure(["ca.key": (goodKey, 0o644), "ca.pem": (good.certificatePEM, 0o644)]))
        #expect(openKey.kind == .privateKeyReadableByOthers)
        #expect(openKey.description.contains("chmod 600"))

        let badCertificate = try #require(try failure(["ca.key": (goodKey, 0o600), "ca.pem": ("not a certificate", 0o644)]))
        #expect(badCertificate.kind == .invalidCertificate)
        #expect(badCertificate.path?.hasSuffix("/ca.pem") == true)

        let mismatched = try #require(try failure(["ca.key": (goodKey, 0o600), "ca.pem": (otherCA.certificatePEM, 0o644)]))
        #expect(mismatched.kind == .invalidCertificate)
        #expect(mismatched.description.contains("different CAs"))

        let leafPEM = try good.identity(forServerName: "appleid.apple.com").leaf.pemRepresentation
        let notCA = try #require(try failure(["ca.key": (goodKey, 0o600), "ca.pem": (leafPEM, 0o644)]))
        #expect(notCA.kind == .invalidCertificate)
    }

    @Test func aFileWhereTheDirectoryShouldBeIsAnError() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        try scratch.write("ca", "a file", mode: 0o644)
        let error = #expect(throws: CertificateAuthorityError.self) { try CertificateAuthority(directory: scratch.path + "/ca") }
        #expect(error?.kind == .unusableDirectory)
        #expect(error?.description.contains("not a directory") == true)
    }

    @Test func anExpiredCAIsAnError() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        _ = try CertificateAuthority(directory: scratch.path, clock: TestClock(Self.start).read)
        let later = TestClock(Self.start + 3651 * 86_400)
        let error = #expect(throws: CertificateAuthorityError.self) { try CertificateAuthority(directory: scratch.path, clock: later.read) }
        #expect(error?.kind == .expired)
        #expect(error?.path?.hasSuffix("/ca.pem") == true)
    }

    @Test func theDefaultDirectoryFollowsXDG() {
        #expect(CertificateAuthority.defaultDirectory(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/a"]) == "/x/data/understudy/ca")
        #expect(CertificateAuthority.defaultDirectory(environment: ["XDG_DATA_HOME": "/x/data/", "HOME": "/home/a"]) == "/x/data/understudy/ca")
        #expect(CertificateAuthority.defaultDirectory(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/a"]) == "/home/a/.local/share/understudy/ca")
        #expect(CertificateAuthority.defaultDirectory(environment: ["XDG_DATA_HOME": "", "HOME": "/home/a/"]) == "/home/a/.local/share/understudy/ca")
        #expect(CertificateAuthority.defaultDirectory(environment: ["HOME": "/"]) == "/.local/share/understudy/ca")
        #expect(CertificateAuthority.defaultDirectory(environment: [:]) == nil)
    }

    // MARK: Leaves

    @Test func aLeafForAppleVerifiesAgainstTheCAWithItsHostname() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let ca = try CertificateAuthority(directory: scratch.path, clock: TestClock(Self.start).read)
        let identity = try ca.identity(forServerName: "appleid.apple.com")
        #expect(identity.certificateChain.count == 2)
        #expect(identity.certificateChain[1].sha256Fingerprint == ca.certificate.sha256Fingerprint)
        let leaf = identity.leaf
        #expect(leaf.dnsNames == ["appleid.apple.com"])
        #expect(leaf.ipAddresses.isEmpty)
        #expect(!leaf.isCertificateAuthority)
        #expect(leaf.issuerCommonName == ca.certificate.subjectCommonName)
        #expect(leaf.notValidBefore == Self.start - 3600)
        #expect(leaf.notValidAfter == Self.start + 30 * 86_400)
        // X509_verify_cert with the CA as the only trust root, serverAuth purpose and hostname check.
        try leaf.verify(trustRoots: [ca.certificate], hostname: "appleid.apple.com", time: Self.start)
        let wrongName = #expect(throws: TLSError.self) {
            try leaf.verify(trustRoots: [ca.certificate], hostname: "www.googleapis.com", time: Self.start)
        }
        #expect(wrongName?.reason == "hostname mismatch")
        let other = Scratch()
        defer { other.remove() }
        let otherCA = try CertificateAuthority(directory: other.path)
        #expect(throws: TLSError.self) { try leaf.verify(trustRoots: [otherCA.certificate], hostname: "appleid.apple.com", time: Self.start) }
    }

    @Test func ipLiteralsAndNoSNIGetIPAddressNames() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let ca = try CertificateAuthority(directory: scratch.path)
        let ip = try ca.identity(forServerName: "127.0.0.1").leaf
        #expect(ip.ipAddresses == ["127.0.0.1"] && ip.dnsNames.isEmpty)
        try ip.verify(trustRoots: [ca.certificate], hostname: "127.0.0.1")
        let local = try ca.identity(forServerName: nil).leaf
        #expect(local.dnsNames == ["localhost"])
        #expect(local.ipAddresses == ["127.0.0.1", "::1"])
        try local.verify(trustRoots: [ca.certificate], hostname: "::1")
    }

    @Test func namesAreNormalisedAndBadNamesRefused() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let ca = try CertificateAuthority(directory: scratch.path)
        let plain = try ca.identity(forServerName: "www.googleapis.com").leaf
        let shouted = try ca.identity(forServerName: "WWW.GoogleAPIs.com.").leaf
        #expect(plain.sha256Fingerprint == shouted.sha256Fingerprint, "the same cached leaf")
        for bad in ["", "bad name", "*.apple.com", "a..b", "-a.example", "a,DNS:evil.example", String(repeating: "a", count: 64) + ".example",
                    String(repeating: "a.", count: 127) + "aa", "caf\u{E9}.example"] {
            let error = #expect(throws: CertificateAuthorityError.self, "\(bad)") { try ca.identity(forServerName: bad) }
            #expect(error?.kind == .invalidServerName)
        }
    }

    @Test func theLeafCacheIsBoundedAndRenewsBeforeExpiry() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let clock = TestClock(Self.start)
        let ca = try CertificateAuthority(directory: scratch.path, cacheCapacity: 2, clock: clock.read)
        let apple = try ca.identity(forServerName: "appleid.apple.com").leaf.sha256Fingerprint
        _ = try ca.identity(forServerName: "accounts.google.com")
        #expect(try ca.identity(forServerName: "appleid.apple.com").leaf.sha256Fingerprint == apple)  // apple is now the most recent
        _ = try ca.identity(forServerName: "www.googleapis.com")  // evicts accounts.google.com
        #expect(ca.cachedLeafCount == 2)
        #expect(try ca.identity(forServerName: "appleid.apple.com").leaf.sha256Fingerprint == apple)

        clock.advance(by: 28 * 86_400)
        #expect(try ca.identity(forServerName: "appleid.apple.com").leaf.sha256Fingerprint == apple, "still well inside its 30 days")
        clock.advance(by: 2 * 86_400)
        let renewed = try ca.identity(forServerName: "appleid.apple.com").leaf
        #expect(renewed.sha256Fingerprint != apple, "reissued a day before expiry")
        #expect(renewed.notValidAfter == Self.start + 60 * 86_400)
    }

    @Test func concurrentRequestsAllGetValidLeaves() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let ca = try CertificateAuthority(directory: scratch.path)
        let names = ["appleid.apple.com", "account.apple.com", "accounts.google.com", "www.googleapis.com"]
        let leaves = try await withThrowingTaskGroup(of: (String, TLSCertificate).self) { group in
            for index in 0..<64 {
                let name = names[index % names.count]
                group.addTask { (name, try ca.identity(forServerName: name).leaf) }
            }
            var out: [(String, TLSCertificate)] = []
            for try await result in group { out.append(result) }
            return out
        }
        #expect(leaves.count == 64)
        for (name, leaf) in leaves { try leaf.verify(trustRoots: [ca.certificate], hostname: name) }
        #expect(ca.cachedLeafCount == names.count)
    }

    // MARK: TLS

    @Test func aHandshakeWithTheCAsLeafVerifiesAndAnotherCAFails() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let ca = try CertificateAuthority(directory: scratch.path)
        let server = try TLSContext(configuration: ca.serverConfiguration())
        let client = try TLSContext(configuration: .client(trustRoots: [ca.certificate]))
        for host in ["appleid.apple.com", "www.googleapis.com", "oauth2.googleapis.com"] {
            let (c, s) = try handshake(client: client, server: server, serverName: host)
            #expect(c.handshakeState.isComplete, "\(host): \(String(describing: c.failure))")
            #expect(s.serverName == host)
            #expect(c.peerCertificateChain.first?.dnsNames == [host])
        }
        let other = Scratch()
        defer { other.remove() }
        let stranger = try TLSContext(configuration: .client(trustRoots: [CertificateAuthority(directory: other.path).certificate]))
        let (c, s) = try handshake(client: stranger, server: server, serverName: "appleid.apple.com")
        guard case .failed(let error) = c.handshakeState else {
            Issue.record("a client trusting another CA must fail")
            return
        }
        #expect(error.kind == .certificateVerificationFailed)
        #expect(s.handshakeState.isFailed)
        // A name the CA cannot issue for fails the handshake on the server, clearly.
        let (_, refused) = try handshake(client: try TLSContext(configuration: .client(trustRoots: [ca.certificate], verifyHostname: false)),
                                         server: server, serverName: "under_score.example")
        guard case .failed(let serverError) = refused.handshakeState else {
            Issue.record("no certificate can be issued for under_score.example")
            return
        }
        #expect(serverError.kind == .noCertificateForServerName)
    }

    // MARK: Checked by the openssl tool

    @Test(.enabled(if: OpenSSLCommand.path != nil, "needs the openssl command-line tool"))
    func opensslAgreesWithTheCAAndItsLeaves() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let ca = try CertificateAuthority(directory: scratch.path)
        let leafPath = scratch.path + "/leaf.pem"
        try ca.identity(forServerName: "appleid.apple.com").leaf.pemRepresentation.write(toFile: leafPath, atomically: true, encoding: .utf8)
        let verified = OpenSSLCommand.run(["verify", "-CAfile", ca.certificatePath, "-purpose", "sslserver",
                                           "-verify_hostname", "appleid.apple.com", leafPath])
        #expect(verified?.contains("OK") == true)
        #expect(OpenSSLCommand.run(["verify", "-CAfile", ca.certificatePath, "-verify_hostname", "example.com", leafPath]) == nil)

        let caText = try #require(OpenSSLCommand.run(["x509", "-noout", "-text", "-in", ca.certificatePath]))
        #expect(caText.contains("X509v3 Basic Constraints: critical\n                CA:TRUE"))
        #expect(caText.contains("X509v3 Key Usage: critical\n                Digital Signature, Certificate Sign, CRL Sign"))
        #expect(caText.contains("ASN1 OID: prime256v1"))
        #expect(caText.contains("Subject: CN = \"Understudy Local CA ("))
        let leafText = try #require(OpenSSLCommand.run(["x509", "-noout", "-text", "-in", leafPath]))
        #expect(leafText.contains("DNS:appleid.apple.com"))
        #expect(leafText.contains("TLS Web Server Authentication"))
        #expect(leafText.contains("CA:FALSE"))
        #expect(leafText.contains("ASN1 OID: prime256v1"))
        let key = try #require(OpenSSLCommand.run(["pkey", "-in", ca.privateKeyPath, "-noout", "-text"]))
        #expect(key.contains("prime256v1"))
    }
}
