import Synchronization
import UnderstudyJOSE
import UnderstudyTLS

/// The local certificate authority that lets Understudy answer as `appleid.apple.com`,
/// `www.googleapis.com` and the rest over TLS: a P-256 CA made on first use in a directory
/// (`ca.key` mode 0600, `ca.pem`), generated on each machine, never embedded, which issues leaf
/// certificates on the fly per host name. Runtimes are told to trust `ca.pem`
/// (`NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`).
///
/// Sendable: the CA key and certificate are read-only; the leaf cache is behind a Mutex.
public final class CertificateAuthority: Sendable {
    public static let certificateFileName = "ca.pem"
    public static let privateKeyFileName = "ca.key"
    static let lockFileName = "ca.lock"
    static let temporaryPrefix = ".ca-tmp-"

    /// CA validity: 10 years from creation (backdated an hour).
    public static let validity: Int64 = 3650 * 86_400
    /// Leaf validity: 30 days, starting an hour in the past so clocks a little behind accept it.
    public static let leafValidity: Int64 = 30 * 86_400
    public static let leafBackdating: Int64 = 3600
    /// Leaves are reissued this long before they expire.
    public static let leafRenewalMargin: Int64 = 86_400
    /// Most leaf identities kept in memory.
    public static let defaultCacheCapacity = 256

    /// The name a client that sends no SNI gets (it connected to an IP address): the leaf also
    /// carries 127.0.0.1 and ::1.
    public static let localName = "localhost"

    /// The directory holding ca.key and ca.pem.
    public let directory: String
    /// The CA certificate, as served at the end of every chain.
    public let certificate: TLSCertificate
    /// The CA certificate as PEM (what `ca.pem` holds; what runtimes must trust).
    public let certificatePEM: String
    /// Whether this call created the CA (the app then says where it is and how to trust it).
    public let wasCreated: Bool

    private let signingKey: JWS.ES256.PrivateKey
    private let issuer: X509Certificate
    private let cache: Mutex<LeafCache>
    private let clock: @Sendable () -> Int64

    public var certificatePath: String { directory + "/" + Self.certificateFileName }
    public var privateKeyPath: String { directory + "/" + Self.privateKeyFileName }

    /// Where the CA lives unless `--ca DIR` says otherwise: `$XDG_DATA_HOME/understudy/ca` (an
    /// absolute XDG_DATA_HOME only, as the XDG spec says), else `$HOME/.local/share/understudy/ca`;
    /// nil when neither is set.
    public static func defaultDirectory(environment: [String: String]) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return trimmingSlashes(data) + "/understudy/ca"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return trimmingSlashes(home) + "/.local/share/understudy/ca"
        }
        return nil
    }

    private static func trimmingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return path == "/" ? "" : String(path)
    }

    /// Opens the CA in `directory`, creating it there if the directory is new or empty.
    /// A directory holding something else, or a broken CA, is an error naming the file and the fix.
    /// `hostname` (default: this machine's) goes into a new CA's name; `clock` gives the time in
    /// seconds since 1970 (for tests).
    public init(directory: String, hostname: String? = nil, cacheCapacity: Int = CertificateAuthority.defaultCacheCapacity,
                clock: (@Sendable () -> Int64)? = nil) throws(CertificateAuthorityError) {
        let clock: @Sendable () -> Int64 = clock ?? { CAFiles.now() }
        let directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try CAFiles.makeDirectory(directory)
        let loaded = try CAFiles.withLock(in: directory) { () throws(CertificateAuthorityError) -> Loaded in
            let entries = try CAFiles.list(directory).filter {
                $0 != CertificateAuthority.lockFileName && !$0.hasPrefix(CertificateAuthority.temporaryPrefix)
            }
            let hasKey = entries.contains(CertificateAuthority.privateKeyFileName)
            let hasCertificate = entries.contains(CertificateAuthority.certificateFileName)
            switch (hasKey, hasCertificate) {
            case (true, true):
                return try CertificateAuthority.load(directory: directory, now: clock())
            case (true, false):
                throw .incomplete(directory, present: CertificateAuthority.privateKeyFileName, missing: CertificateAuthority.certificateFileName)
            case (false, true):
                throw .incomplete(directory, present: CertificateAuthority.certificateFileName, missing: CertificateAuthority.privateKeyFileName)
            case (false, false):
                guard entries.isEmpty else { throw .directoryNotEmpty(directory, entries: entries) }
                return try CertificateAuthority.create(directory: directory, hostname: hostname ?? CAFiles.hostname(), now: clock())
            }
        }
        self.directory = directory
        self.signingKey = loaded.key
        self.issuer = loaded.issuer
        self.certificate = loaded.certificate
        self.certificatePEM = loaded.certificate.pemRepresentation
        self.wasCreated = loaded.created
        self.cache = Mutex(LeafCache(capacity: cacheCapacity))
        self.clock = clock
    }

    // MARK: Leaves

    /// The identity (leaf + CA chain and the leaf's key) for a server name: a cached one, or a new
    /// leaf for that name (a DNS name, or an IP literal as an iPAddress name). nil means the
    /// client sent no SNI: the leaf for `localhost`, 127.0.0.1 and ::1.
    public func identity(forServerName serverName: String?) throws(CertificateAuthorityError) -> TLSIdentity {
        let name = try LeafName(serverName ?? Self.localName)
        let key = serverName == nil ? "" : name.text
        let now = clock()
        if let cached = cache.withLock({ $0.lookup(key, now: now) }) { return cached }
        let (identity, notAfter) = try issue(for: name, local: serverName == nil, now: now)
        cache.withLock { $0.insert(key, identity: identity, renewAfter: notAfter - Self.leafRenewalMargin) }
        return identity
    }

    /// A server configuration that picks the leaf by SNI, issuing it on first use. A name this CA
    /// cannot issue for fails that handshake with `noCertificateForServerName`.
    public func serverConfiguration() -> TLSConfiguration {
        TLSConfiguration.server { [self] name in try? self.identity(forServerName: name) }
    }

    /// How many leaves are cached.
    public var cachedLeafCount: Int { cache.withLock { $0.count } }

    private func issue(for name: LeafName, local: Bool, now: Int64) throws(CertificateAuthorityError) -> (TLSIdentity, Int64) {
        let notBefore = now - Self.leafBackdating
        let notAfter = min(now + Self.leafValidity, certificate.notValidAfter)
        guard notAfter > now else { throw .expired(certificatePath, directory: directory, notAfter: certificate.notValidAfter) }
        do {
            let key = try JWS.ES256.PrivateKey()
            let dnsNames = local ? [Self.localName] : name.isIPAddress ? [] : [name.text]
            let ipAddresses = local ? ["127.0.0.1", "::1"] : name.isIPAddress ? [name.text] : []
            let leaf = try X509Certificate.serverCertificate(publicKey: key.publicKey, dnsNames: dnsNames, ipAddresses: ipAddresses,
                                                            issuer: issuer, issuerKey: signingKey, serialNumber: Self.randomSerial(),
                                                            notBefore: notBefore, notAfter: notAfter)
            let identity = try TLSIdentity(certificateChain: [TLSCertificate(derRepresentation: leaf.derRepresentation), certificate],
                                           privateKey: TLSPrivateKey(pemRepresentation: key.pemRepresentation))
            return (identity, notAfter)
        } catch {
            throw .issuanceFailed(name.text, "\(error)")
        }
    }

    /// A random positive 63-bit serial (RFC 5280: unique per issuer, at most 20 octets).
    static func randomSerial() -> UInt64 {
        let bytes = SecureRandom.bytes(8)
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & 0x7FFF_FFFF_FFFF_FFFF
        return value == 0 ? 1 : value
    }

    // MARK: Creating and loading

    private struct Loaded {
        let key: JWS.ES256.PrivateKey
        let issuer: X509Certificate
        let certificate: TLSCertificate
        let created: Bool
    }

    /// "Understudy Local CA (<hostname>, <date>)", the host name shortened to fit the 64
    /// characters X.509 allows a common name.
    static func commonName(hostname: String, now: Int64) -> String {
        let prefix = "Understudy Local CA ("
        let suffix = ", \(CAFiles.date(now)))"
        let room = X509Certificate.maximumCommonNameLength - prefix.count - suffix.count
        let host = hostname.filter { $0.isASCII && !$0.isNewline }
        return prefix + String(host.prefix(max(1, room))) + suffix
    }

    private static func create(directory: String, hostname: String, now: Int64) throws(CertificateAuthorityError) -> Loaded {
        let key: JWS.ES256.PrivateKey
        let issuer: X509Certificate
        let certificate: TLSCertificate
        do {
            key = try JWS.ES256.PrivateKey()
            issuer = try X509Certificate.certificateAuthority(key: key, commonName: commonName(hostname: hostname, now: now),
                                                              serialNumber: randomSerial(),
                                                              notBefore: now - leafBackdating, notAfter: now + validity)
            certificate = try TLSCertificate(derRepresentation: issuer.derRepresentation)
        } catch {
            throw .issuanceFailed("the CA", "\(error)")
        }
        let keyPath = directory + "/" + privateKeyFileName
        let certificatePath = directory + "/" + certificateFileName
        // The key first: a crash between the two leaves a key without a certificate, which the next
        // start reports as incomplete rather than a certificate nobody holds the key of.
        try CAFiles.writeNew(Array(key.pemRepresentation.utf8), to: keyPath, in: directory, mode: 0o600)
        do {
            try CAFiles.writeNew(Array(certificate.pemRepresentation.utf8), to: certificatePath, in: directory, mode: 0o644)
        } catch {
            CAFiles.remove(keyPath)
            throw error
        }
        CAFiles.syncDirectory(directory)
        return Loaded(key: key, issuer: issuer, certificate: certificate, created: true)
    }

    private static func load(directory: String, now: Int64) throws(CertificateAuthorityError) -> Loaded {
        let keyPath = directory + "/" + privateKeyFileName
        let certificatePath = directory + "/" + certificateFileName
        let mode = try CAFiles.mode(keyPath)
        guard mode & 0o077 == 0 else { throw .privateKeyReadableByOthers(keyPath, mode: mode) }
        let keyPEM = String(decoding: try CAFiles.read(keyPath, limit: 64 * 1024), as: UTF8.self)
        let key: JWS.ES256.PrivateKey
        do {
            key = try JWS.ES256.PrivateKey(pemRepresentation: keyPEM)
        } catch {
            throw .invalidPrivateKey(keyPath, directory: directory, "expected an unencrypted P-256 private key in PEM (\(error))")
        }
        let certificatePEM = String(decoding: try CAFiles.read(certificatePath, limit: 64 * 1024), as: UTF8.self)
        let issuer: X509Certificate
        let certificate: TLSCertificate
        do {
            issuer = try X509Certificate(pemRepresentation: certificatePEM)
            certificate = try TLSCertificate(pemRepresentation: certificatePEM)
        } catch {
            throw .invalidCertificate(certificatePath, directory: directory, "expected one PEM certificate (\(error))")
        }
        guard certificate.isCertificateAuthority else {
            throw .invalidCertificate(certificatePath, directory: directory, "it is not a CA certificate (basicConstraints CA:TRUE)")
        }
        let tlsKey: TLSPrivateKey
        do {
            tlsKey = try TLSPrivateKey(pemRepresentation: keyPEM)
        } catch {
            throw .invalidPrivateKey(keyPath, directory: directory, "\(error)")
        }
        guard certificate.matches(tlsKey), issuer.isSigned(by: key.publicKey) else {
            throw .invalidCertificate(certificatePath, directory: directory, "it is not signed with ca.key (the two files come from different CAs)")
        }
        guard certificate.notValidAfter > now else {
            throw .expired(certificatePath, directory: directory, notAfter: certificate.notValidAfter)
        }
        return Loaded(key: key, issuer: issuer, certificate: certificate, created: false)
    }
}
