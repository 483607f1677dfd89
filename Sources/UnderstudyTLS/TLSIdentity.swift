import COpenSSL

/// What a server presents: its certificate chain (leaf first, then the intermediates and,
/// optionally, the root) and the leaf's private key. Checked to belong together when made.
public struct TLSIdentity: Sendable {
    let backing: IdentityBacking

    /// Longest chain accepted.
    public static let maximumChainLength = 10

    public init(certificateChain: [TLSCertificate], privateKey: TLSPrivateKey) throws(TLSError) {
        guard let leaf = certificateChain.first else {
            throw .invalidCertificate("a server identity needs at least its leaf certificate")
        }
        guard certificateChain.count <= TLSIdentity.maximumChainLength else {
            throw .invalidCertificate("a chain of \(certificateChain.count) certificates is longer than \(TLSIdentity.maximumChainLength)")
        }
        guard leaf.matches(privateKey) else {
            throw .invalidPrivateKey("the private key does not belong to the leaf certificate (the first of the chain)")
        }
        guard let backing = IdentityBacking(chain: certificateChain, key: privateKey) else {
            throw .cryptoFailure("building the certificate chain", reason: OpenSSLErrorQueue.drain())
        }
        self.backing = backing
    }

    /// Leaf first.
    public var certificateChain: [TLSCertificate] { backing.chain }

    public var leaf: TLSCertificate { backing.chain[0] }
}

/// Owns the `STACK_OF(X509)` of the chain's certificates after the leaf (each with its own
/// reference), built once so every handshake only takes references.
final class IdentityBacking: @unchecked Sendable {
    let chain: [TLSCertificate]
    let key: TLSPrivateKey
    let extraCertificates: OpaquePointer

    init?(chain: [TLSCertificate], key: TLSPrivateKey) {
        guard let stack = OPENSSL_sk_new_null() else { return nil }
        for certificate in chain.dropFirst() {
            guard X509_up_ref(certificate.owner.pointer) == 1 else {
                IdentityBacking.free(stack)
                return nil
            }
            if OPENSSL_sk_push(stack, UnsafeRawPointer(certificate.owner.pointer)) <= 0 {
                X509_free(certificate.owner.pointer)
                IdentityBacking.free(stack)
                return nil
            }
        }
        self.chain = chain
        self.key = key
        self.extraCertificates = stack
    }

    deinit {
        IdentityBacking.free(extraCertificates)
    }

    var leafPointer: OpaquePointer { chain[0].owner.pointer }
    var keyPointer: OpaquePointer { key.owner.pointer }

    private static func free(_ stack: OpaquePointer) {
        OPENSSL_sk_pop_free(stack) { element in
            if let element { X509_free(OpaquePointer(element)) }
        }
    }
}
