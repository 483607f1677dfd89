import COpenSSL

/// Owns one `X509`. Certificates are only read after construction, which OpenSSL allows from
/// several threads.
final class X509Owner: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }
}
