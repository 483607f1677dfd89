import COpenSSL

/// Owns one `EVP_PKEY`. A key is only used for signing inside handshakes after construction, which
/// OpenSSL 3 allows from several threads (each handshake has its own contexts).
final class PrivateKeyOwner: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}
