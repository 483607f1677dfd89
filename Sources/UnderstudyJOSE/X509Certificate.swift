import COpenSSL

/// Owns one `X509`. Certificates are only read after construction, which OpenSSL allows from
/// several threads.
final class X509Backing: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }
}

/// An X.509 certificate over an RSA key: what Google's v1 certs endpoint serves (one self-signed
/// certificate per signing key).
public struct X509Certificate: Sendable {
    let backing: X509Backing

    /// Longest common name X.509 allows (RFC 5280 ub-common-name).
    public static let maximumCommonNameLength = 64

    /// A self-signed v3 certificate over `key`, signed with SHA-256, with the extensions Google's
    /// v1 certificates carry: basicConstraints CA:FALSE, keyUsage digitalSignature and
    /// extendedKeyUsage clientAuth, all critical.
    public static func selfSigned(key: JWS.RS256.PrivateKey, commonName: String, serialNumber: UInt64,
                                  notBefore: Int64, notAfter: Int64) throws(JOSEError) -> X509Certificate {
        try build(subjectKey: key.backing, commonName: commonName, serialNumber: serialNumber,
                  notBefore: notBefore, notAfter: notAfter, issuer: nil, signingKey: key.backing,
                  extensions: [
                      (NID_basic_constraints, "critical,CA:FALSE"),
                      (NID_key_usage, "critical,digitalSignature"),
                      (NID_ext_key_usage, "critical,clientAuth"),
                  ])
    }

    /// A self-signed certificate authority (basicConstraints CA:TRUE, keyUsage keyCertSign and
    /// cRLSign, subjectKeyIdentifier), for a local CA that runtimes are told to trust.
    public static func certificateAuthority(key: JWS.RS256.PrivateKey, commonName: String, serialNumber: UInt64,
                                            notBefore: Int64, notAfter: Int64) throws(JOSEError) -> X509Certificate {
        try build(subjectKey: key.backing, commonName: commonName, serialNumber: serialNumber,
                  notBefore: notBefore, notAfter: notAfter, issuer: nil, signingKey: key.backing,
                  extensions: [
                      (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                      (NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"),
                      (NID_subject_key_identifier, "hash"),
                  ])
    }

    /// Most names one server certificate may carry.
    public static let maximumSubjectAlternativeNames = 100

    /// A TLS server certificate for `dnsNames` (and `ipAddresses`) over `publicKey`, issued and
    /// signed by `issuer` with `issuerKey`: subjectAltName, serverAuth, CA:FALSE, key identifiers.
    /// The first DNS name is also the subject common name.
    public static func serverCertificate(publicKey: JWS.RS256.PublicKey, dnsNames: [String], ipAddresses: [String] = [],
                                         issuer: X509Certificate, issuerKey: JWS.RS256.PrivateKey, serialNumber: UInt64,
                                         notBefore: Int64, notAfter: Int64) throws(JOSEError) -> X509Certificate {
        try server(subjectKey: publicKey.backing, keyUsage: "critical,digitalSignature,keyEncipherment",
                   dnsNames: dnsNames, ipAddresses: ipAddresses, issuer: issuer, issuerKey: issuerKey.backing,
                   serialNumber: serialNumber, notBefore: notBefore, notAfter: notAfter)
    }

    /// A self-signed certificate authority over a P-256 key, with the extensions of the RSA one.
    public static func certificateAuthority(key: JWS.ES256.PrivateKey, commonName: String, serialNumber: UInt64,
                                            notBefore: Int64, notAfter: Int64) throws(JOSEError) -> X509Certificate {
        try build(subjectKey: key.backing, commonName: commonName, serialNumber: serialNumber,
                  notBefore: notBefore, notAfter: notAfter, issuer: nil, signingKey: key.backing,
                  extensions: [
                      (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                      (NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"),
                      (NID_subject_key_identifier, "hash"),
                  ])
    }

    /// A TLS server certificate over a P-256 key, issued by a P-256 certificate authority. As the
    /// RSA one, except keyUsage is digitalSignature only (an EC key does not encipher keys).
    public static func serverCertificate(publicKey: JWS.ES256.PublicKey, dnsNames: [String], ipAddresses: [String] = [],
                                         issuer: X509Certificate, issuerKey: JWS.ES256.PrivateKey, serialNumber: UInt64,
                                         notBefore: Int64, notAfter: Int64) throws(JOSEError) -> X509Certificate {
        try server(subjectKey: publicKey.backing, keyUsage: "critical,digitalSignature",
                   dnsNames: dnsNames, ipAddresses: ipAddresses, issuer: issuer, issuerKey: issuerKey.backing,
                   serialNumber: serialNumber, notBefore: notBefore, notAfter: notAfter)
    }

    private static func server(subjectKey: EVPKey, keyUsage: String, dnsNames: [String], ipAddresses: [String],
                               issuer: X509Certificate, issuerKey: EVPKey, serialNumber: UInt64,
                               notBefore: Int64, notAfter: Int64) throws(JOSEError) -> X509Certificate {
        guard let first = dnsNames.first ?? ipAddresses.first else {
            throw .invalidCertificate("a server certificate needs at least one DNS name or IP address")
        }
        guard dnsNames.count + ipAddresses.count <= maximumSubjectAlternativeNames else {
            throw .invalidCertificate("at most \(maximumSubjectAlternativeNames) names fit in one certificate")
        }
        for name in dnsNames {
            let valid = !name.isEmpty && name.utf8.count <= 253
                && name.utf8.allSatisfy { c in
                    (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
                        || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "*")
                }
            guard valid else {
                throw .invalidCertificate("\"\(name.prefix(64))\" is not a DNS name (letters, digits, '-', '.', a leading '*.' wildcard)")
            }
        }
        for address in ipAddresses {
            let valid = !address.isEmpty && address.utf8.count <= 45
                && address.utf8.allSatisfy { c in
                    (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)
                        || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
                }
            guard valid else { throw .invalidCertificate("\"\(address.prefix(64))\" is not an IPv4 or IPv6 address") }
        }
        let names = (dnsNames.map { "DNS:" + $0 } + ipAddresses.map { "IP:" + $0 }).joined(separator: ",")
        return try build(subjectKey: subjectKey, commonName: String(first.prefix(maximumCommonNameLength)),
                         serialNumber: serialNumber, notBefore: notBefore, notAfter: notAfter,
                         issuer: issuer, signingKey: issuerKey,
                         extensions: [
                             (NID_basic_constraints, "critical,CA:FALSE"),
                             (NID_key_usage, keyUsage),
                             (NID_ext_key_usage, "serverAuth"),
                             (NID_subject_key_identifier, "hash"),
                             (NID_authority_key_identifier, "keyid:always"),
                             (NID_subject_alt_name, names),
                         ])
    }

    private static func build(subjectKey: EVPKey, commonName: String, serialNumber: UInt64, notBefore: Int64,
                              notAfter: Int64, issuer: X509Certificate?, signingKey: EVPKey,
                              extensions: [(Int32, String)]) throws(JOSEError) -> X509Certificate {
        let cn = Array(commonName.utf8)
        guard !cn.isEmpty, commonName.count <= maximumCommonNameLength else {
            throw .invalidCertificate("the common name must be 1 to \(maximumCommonNameLength) characters")
        }
        guard notAfter > notBefore else {
            throw .invalidCertificate("notAfter (\(notAfter)) must be later than notBefore (\(notBefore))")
        }
        guard serialNumber > 0 else { throw .invalidCertificate("the serial number must be positive (RFC 5280 section 4.1.2.2)") }
        guard let x509 = X509_new() else { throw .cryptoFailure("X509_new") }
        let backing = X509Backing(takingOwnershipOf: x509)

        guard X509_set_version(x509, 2) == 1,
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serialNumber) == 1,
              ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter)) != nil,
              X509_set_pubkey(x509, subjectKey.pointer) == 1,
              let name = X509_get_subject_name(x509)
        else { throw .cryptoFailure("building the certificate") }
        let added = cn.withUnsafeBufferPointer {
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, $0.baseAddress, Int32($0.count), -1, 0)
        }
        guard added == 1 else {
            OpenSSL.clearErrors()
            throw .invalidCertificate("OpenSSL refused the common name")
        }
        let issuerPointer = issuer?.backing.pointer ?? x509
        guard X509_set_issuer_name(x509, X509_get_subject_name(issuerPointer)) == 1 else {
            throw .cryptoFailure("X509_set_issuer_name")
        }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerPointer, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                OpenSSL.clearErrors()
                throw .invalidCertificate("OpenSSL refused the extension \(String(cString: OBJ_nid2sn(nid)))=\(value.prefix(80))")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw .cryptoFailure("X509_add_ext") }
        }
        guard X509_sign(x509, signingKey.pointer, OpenSSL.sha256) > 0 else {
            OpenSSL.clearErrors()
            throw .invalidCertificate("signing failed; is the issuer key the key of the issuer certificate?")
        }
        if let issuer {
            let issuerPublic = X509_get0_pubkey(issuer.backing.pointer)
            guard let issuerPublic, X509_verify(x509, issuerPublic) == 1 else {
                OpenSSL.clearErrors()
                throw .invalidCertificate("the issuer key does not belong to the issuer certificate")
            }
        }
        return X509Certificate(backing: backing)
    }

    init(backing: X509Backing) {
        self.backing = backing
    }

    /// Reads one "-----BEGIN CERTIFICATE-----" PEM block.
    public init(pemRepresentation: String) throws(JOSEError) {
        guard let x509 = OpenSSL.withReadableBIO(pemRepresentation, { bio in
            PEM_read_bio_X509(bio, nil, OpenSSL.refusePassphrase, nil)
        }) else {
            throw .invalidPEM("certificate", "expected one \"-----BEGIN CERTIFICATE-----\" block of at most 64 KiB")
        }
        backing = X509Backing(takingOwnershipOf: x509)
    }

    /// Reads a DER certificate (as in a JWK's "x5c", after base64 decoding).
    public init(derRepresentation: [UInt8]) throws(JOSEError) {
        guard !derRepresentation.isEmpty, derRepresentation.count <= OpenSSL.maximumPEMLength else {
            throw .invalidCertificate("a DER certificate must be 1 byte to 64 KiB")
        }
        let x509 = derRepresentation.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let x509 else {
            OpenSSL.clearErrors()
            throw .invalidCertificate("the bytes are not a DER-encoded X.509 certificate")
        }
        backing = X509Backing(takingOwnershipOf: x509)
    }

    /// "-----BEGIN CERTIFICATE-----\n" + 64-column base64 lines + "-----END CERTIFICATE-----\n".
    public var pemRepresentation: String {
        guard let pem = OpenSSL.withWritableBIO({ bio in PEM_write_bio_X509(bio, backing.pointer) == 1 }) else {
            fatalError("OpenSSL could not write a certificate as PEM (\(OpenSSL.drainErrors()))")
        }
        return pem
    }

    public var derRepresentation: [UInt8] {
        let length = i2d_X509(backing.pointer, nil)
        guard length > 0 else { return [] }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { out -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = out.baseAddress
            return i2d_X509(backing.pointer, &cursor)
        }
        return written == length ? der : []
    }

    /// The certificate's RSA public key.
    public var publicKey: JWS.RS256.PublicKey {
        get throws(JOSEError) {
            guard let pkey = X509_get_pubkey(backing.pointer) else {
                OpenSSL.clearErrors()
                throw .invalidCertificate("the certificate's public key could not be read")
            }
            let key = EVPKey(takingOwnershipOf: pkey)
            try JWS.RS256.validate(key)
            return JWS.RS256.PublicKey(backing: key)
        }
    }

    /// Whether the certificate's signature verifies with `key` (for a self-signed one, its own key).
    public func isSigned(by key: JWS.RS256.PublicKey) -> Bool {
        let ok = X509_verify(backing.pointer, key.backing.pointer) == 1
        if !ok { OpenSSL.clearErrors() }
        return ok
    }

    /// Whether the certificate's signature verifies with the P-256 `key`.
    public func isSigned(by key: JWS.ES256.PublicKey) -> Bool {
        let ok = X509_verify(backing.pointer, key.backing.pointer) == 1
        if !ok { OpenSSL.clearErrors() }
        return ok
    }

    /// The serial number, if it fits in 64 bits.
    public var serialNumber: UInt64? {
        var value: UInt64 = 0
        guard let serial = X509_get0_serialNumber(backing.pointer), ASN1_INTEGER_get_uint64(&value, serial) == 1 else {
            OpenSSL.clearErrors()
            return nil
        }
        return value
    }
}
