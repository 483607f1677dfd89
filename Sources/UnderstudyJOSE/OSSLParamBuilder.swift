import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Builds an `EVP_PKEY` from named parameters (RSA n/e/d..., EC group/pub/priv) with
/// `OSSL_PARAM_BLD` and `EVP_PKEY_fromdata`. The builder keeps pointers to names and values until
/// `OSSL_PARAM_BLD_to_param`, so every one of them is owned here and freed in `deinit`.
final class OSSLParamBuilder {
    private let builder: OpaquePointer
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var numbers: [OpaquePointer] = []
    private var buffers: [UnsafeMutableRawPointer] = []
    private var failed = false

    init?() {
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        self.builder = builder
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        for s in strings { free(s) }
        for n in numbers { BN_clear_free(n) }
        for b in buffers { free(b) }
    }

    private func keep(_ s: String) -> UnsafeMutablePointer<CChar> {
        let p = strdup(s)!
        strings.append(p)
        return p
    }

    func pushBigNumber(_ name: String, _ bytes: [UInt8]) {
        let bn = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let bn else { failed = true; return }
        numbers.append(bn)
        if OSSL_PARAM_BLD_push_BN(builder, keep(name), bn) != 1 { failed = true }
    }

    func pushUTF8(_ name: String, _ value: String) {
        if OSSL_PARAM_BLD_push_utf8_string(builder, keep(name), keep(value), 0) != 1 { failed = true }
    }

    func pushOctets(_ name: String, _ bytes: [UInt8]) {
        guard let p = malloc(max(bytes.count, 1)) else { failed = true; return }
        buffers.append(p)
        bytes.withUnsafeBytes { if let base = $0.baseAddress { p.copyMemory(from: base, byteCount: $0.count) } }
        if OSSL_PARAM_BLD_push_octet_string(builder, keep(name), p, bytes.count) != 1 { failed = true }
    }

    /// `selection` is `EVP_PKEY_PUBLIC_KEY` or `EVP_PKEY_KEYPAIR`.
    func makeKey(type: OpenSSL.KeyType, selection: Int32) -> EVPKey? {
        guard !failed, let params = OSSL_PARAM_BLD_to_param(builder) else {
            OpenSSL.clearErrors()
            return nil
        }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type.cName, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &key, selection, params) == 1, let key else {
            OpenSSL.clearErrors()
            return nil
        }
        return EVPKey(takingOwnershipOf: key)
    }
}
