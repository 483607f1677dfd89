#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// An X.509 certificate, as served in a chain or trusted as a root. Read-only after construction.
public struct TLSCertificate: Sendable {
    let owner: X509Owner

    /// Largest certificate accepted (real ones are 1-4 KiB).
    public static let maximumSize = 64 * 1024

    init(owner: X509Owner) {
        self.owner = owner
    }

    /// Reads the first "-----BEGIN CERTIFICATE-----" block of `pemRepresentation`.
    public init(pemRepresentation: String) throws(TLSError) {
        let all = try TLSCertificate.certificates(pemRepresentation: pemRepresentation)
        self = all[0]
    }

    /// Reads every certificate of a PEM bundle (a chain file, a CA file), in order; at least one.
    public static func certificates(pemRepresentation: String) throws(TLSError) -> [TLSCertificate] {
        let bytes = Array(pemRepresentation.utf8)
        guard !bytes.isEmpty, bytes.count <= 16 * maximumSize else {
            throw .invalidCertificate("expected PEM certificates of at most \(16 * maximumSize / 1024) KiB in all, got \(bytes.count) bytes")
        }
        OpenSSLErrorQueue.clear()
        let certificates = withReadableBIO(bytes, limit: 16 * maximumSize) { bio -> [TLSCertificate]? in
            var out: [TLSCertificate] = []
            while out.count < 16, let x509 = PEM_read_bio_X509(bio, nil, refusePassphrase, nil) {
                out.append(TLSCertificate(owner: X509Owner(takingOwnershipOf: x509)))
            }
            return out
        } ?? []
        OpenSSLErrorQueue.clear()  // the read past the last block always queues "no start line"
        guard !certificates.isEmpty else {
            throw .invalidCertificate("expected at least one \"-----BEGIN CERTIFICATE-----\" block")
        }
        return certificates
    }

    /// Reads a DER-encoded certificate.
    public init(derRepresentation: [UInt8]) throws(TLSError) {
        guard !derRepresentation.isEmpty, derRepresentation.count <= TLSCertificate.maximumSize else {
            throw .invalidCertificate("a DER certificate must be 1 byte to \(TLSCertificate.maximumSize / 1024) KiB")
        }
        let x509 = derRepresentation.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let x509 else {
            OpenSSLErrorQueue.clear()
            throw .invalidCertificate("the bytes are not a DER-encoded X.509 certificate")
        }
        owner = X509Owner(takingOwnershipOf: x509)
    }

    /// "-----BEGIN CERTIFICATE-----" PEM, 64-column base64, newline-terminated.
    public var pemRepresentation: String {
        guard let bio = BIO_new(BIO_s_mem()) else { fatalError("OpenSSL could not allocate a memory BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, owner.pointer) == 1 else {
            fatalError("OpenSSL could not write a certificate as PEM (\(OpenSSLErrorQueue.drain() ?? "no detail"))")
        }
        return String(decoding: readAll(from: bio), as: UTF8.self)
    }

    public var derRepresentation: [UInt8] {
        let length = i2d_X509(owner.pointer, nil)
        guard length > 0 else { return [] }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { out -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = out.baseAddress
            return i2d_X509(owner.pointer, &cursor)
        }
        return written == length ? der : []
    }

    /// The subject's common name, if it has one.
    public var subjectCommonName: String? { Self.commonName(of: X509_get_subject_name(owner.pointer)) }

    /// The issuer's common name, if it has one.
    public var issuerCommonName: String? { Self.commonName(of: X509_get_issuer_name(owner.pointer)) }

    /// The subjectAltName DNS names, in order.
    public var dnsNames: [String] { alternativeNames(type: GEN_DNS) }

    /// The subjectAltName IP addresses, as text ("127.0.0.1", "::1").
    public var ipAddresses: [String] { alternativeNames(type: GEN_IPADD) }

    /// Start of validity, in seconds since 1970 (UTC).
    public var notValidBefore: Int64 { Self.seconds(X509_get0_notBefore(owner.pointer)) }

    /// End of validity, in seconds since 1970 (UTC).
    public var notValidAfter: Int64 { Self.seconds(X509_get0_notAfter(owner.pointer)) }

    /// Whether basicConstraints says CA:TRUE (the certificate may issue others).
    public var isCertificateAuthority: Bool {
        let ca = X509_check_ca(owner.pointer) == 1
        OpenSSLErrorQueue.clear()
        return ca
    }

    /// The SHA-256 of the DER encoding, as uppercase hex pairs joined by ':' (as `openssl x509
    /// -fingerprint -sha256` prints it).
    public var sha256Fingerprint: String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard X509_digest(owner.pointer, EVP_sha256(), &digest, &length) == 1 else { return "" }
        let hex: [Character] = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { String([hex[Int($0 >> 4)], hex[Int($0 & 0xF)]]) }.joined(separator: ":")
    }

    /// Whether `key` is this certificate's private key.
    public func matches(_ key: TLSPrivateKey) -> Bool {
        let ok = X509_check_private_key(owner.pointer, key.owner.pointer) == 1
        OpenSSLErrorQueue.clear()
        return ok
    }

    /// Checks this certificate as a TLS server certificate: it chains (through `intermediates`)
    /// to one of `trustRoots`, is valid at `time` (seconds since 1970; now if nil), is fit for
    /// serverAuth, and, if `hostname` is given, names it (a DNS name or an IP literal).
    public func verify(trustRoots: [TLSCertificate], intermediates: [TLSCertificate] = [], hostname: String? = nil,
                       time: Int64? = nil) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let store = X509_STORE_new() else { throw .cryptoFailure("X509_STORE_new", reason: OpenSSLErrorQueue.drain()) }
        defer { X509_STORE_free(store) }
        for root in trustRoots where X509_STORE_add_cert(store, root.owner.pointer) != 1 {
            throw .cryptoFailure("X509_STORE_add_cert", reason: OpenSSLErrorQueue.drain())
        }
        guard let untrusted = OPENSSL_sk_new_null() else { throw .cryptoFailure("OPENSSL_sk_new_null", reason: nil) }
        defer { OPENSSL_sk_free(untrusted) }  // the stack only borrows the certificates
        for certificate in intermediates {
            _ = OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate.owner.pointer))
        }
        guard let context = X509_STORE_CTX_new() else { throw .cryptoFailure("X509_STORE_CTX_new", reason: nil) }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, owner.pointer, untrusted) == 1,
              let parameters = X509_STORE_CTX_get0_param(context),
              X509_VERIFY_PARAM_set_purpose(parameters, X509_PURPOSE_SSL_SERVER) == 1
        else { throw .cryptoFailure("X509_STORE_CTX_init", reason: OpenSSLErrorQueue.drain()) }
        if let time { X509_VERIFY_PARAM_set_time(parameters, time_t(time)) }
        if let hostname {
            let set = IPAddress.isLiteral(hostname)
                ? X509_VERIFY_PARAM_set1_ip_asc(parameters, hostname)
                : X509_VERIFY_PARAM_set1_host(parameters, hostname, 0)
            guard set == 1 else {
                OpenSSLErrorQueue.clear()
                throw .invalidConfiguration("\"\(hostname.prefix(80))\" is not a host name or IP address to verify")
            }
        }
        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            OpenSSLErrorQueue.clear()
            throw .certificateVerification(String(cString: X509_verify_cert_error_string(Int(code))), alert: nil)
        }
    }

    private static func commonName(of name: OpaquePointer?) -> String? {
        guard let name else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        return string(of: UnsafePointer(data))
    }

    private static func string(of asn1: UnsafePointer<ASN1_STRING>) -> String? {
        var utf8: UnsafeMutablePointer<UInt8>? = nil
        let length = ASN1_STRING_to_UTF8(&utf8, asn1)
        guard length >= 0, let utf8 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { CRYPTO_free(utf8, nil, 0) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    private func alternativeNames(type: Int32) -> [String] {
        guard let raw = X509_get_ext_d2i(owner.pointer, NID_subject_alt_name, nil, nil) else {
            OpenSSLErrorQueue.clear()
            return []
        }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var out: [String] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let element = OPENSSL_sk_value(names, index) else { continue }
            let name = element.assumingMemoryBound(to: GENERAL_NAME.self).pointee
            guard name.type == type else { continue }
            if type == GEN_DNS, let value = name.d.dNSName {
                if let text = Self.string(of: UnsafePointer(value)) { out.append(text) }
            } else if type == GEN_IPADD, let value = name.d.iPAddress {
                let length = Int(ASN1_STRING_length(value))
                guard let data = ASN1_STRING_get0_data(value) else { continue }
                out.append(IPAddress.text(Array(UnsafeBufferPointer(start: data, count: length))))
            }
        }
        return out
    }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
        guard let time else { return 0 }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else {
            OpenSSLErrorQueue.clear()
            return 0
        }
        return Int64(timegm(&parts))
    }
}
