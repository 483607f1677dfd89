import COpenSSL

/// A private key a TLS server signs its handshakes with (ECDSA or RSA).
public struct TLSPrivateKey: Sendable {
    let owner: PrivateKeyOwner

    /// Reads one unencrypted PEM private key: PKCS#8 "PRIVATE KEY", SEC 1 "EC PRIVATE KEY" or
    /// PKCS#1 "RSA PRIVATE KEY", of at most 64 KiB. Encrypted keys are refused (no prompt).
    public init(pemRepresentation: String) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let key = withReadableBIO(Array(pemRepresentation.utf8), limit: 64 * 1024) { bio in
            PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil)
        }
        guard let key else {
            let reason = OpenSSLErrorQueue.drain()
            throw .invalidPrivateKey("expected one unencrypted PEM private key of at most 64 KiB (\(reason ?? "no detail"))")
        }
        owner = PrivateKeyOwner(takingOwnershipOf: key)
    }
}
