import COpenSSL

/// Owns one `EVP_PKEY`. OpenSSL 3 allows concurrent signing and verification with a shared key
/// as long as each operation has its own `EVP_MD_CTX`, which `OpenSSL.digestSign` guarantees.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    var baseID: Int32 { EVP_PKEY_get_base_id(pointer) }
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Generates a key with `EVP_PKEY_keygen`; `configure` sets parameters on the context.
    static func generate(type: OpenSSL.KeyType, configure: (OpaquePointer) -> Bool) -> EVPKey? {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type.cName, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, configure(ctx) else { return nil }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(ctx, &key) == 1, let key else { return nil }
        return EVPKey(takingOwnershipOf: key)
    }

    /// A big-endian integer parameter without leading zeros ("n", "e", "priv").
    func bigNumberParameter(_ name: String) -> [UInt8]? {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &bn) == 1, let bn else { return nil }
        defer { BN_clear_free(bn) }
        let count = (Int(BN_num_bits(bn)) + 7) / 8
        var out = [UInt8](repeating: 0, count: count)
        if count > 0 { _ = BN_bn2bin(bn, &out) }
        return out
    }

    /// A big-endian integer parameter left-padded to `size` bytes.
    func paddedBigNumberParameter(_ name: String, size: Int) -> [UInt8]? {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &bn) == 1, let bn else { return nil }
        defer { BN_clear_free(bn) }
        var out = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(bn, &out, Int32(size)) == Int32(size) else { return nil }
        return out
    }

    func groupName() -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs OpenSSL's public-key check (for EC: the point is on the curve and not at infinity).
    func publicCheck() -> Bool {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        return EVP_PKEY_public_check(ctx) == 1
    }

    /// Runs OpenSSL's full key check (for RSA private keys: p, q, d and CRT values agree).
    func pairwiseCheck() -> Bool {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        return EVP_PKEY_check(ctx) == 1
    }

    func rawPublicKey() -> [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_raw_public_key(pointer, nil, &length) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_public_key(pointer, &out, &length) == 1 else { return nil }
        return Array(out.prefix(length))
    }

    /// PKCS#8 "PRIVATE KEY" PEM.
    func privateKeyPEM() -> String? {
        OpenSSL.withWritableBIO { bio in
            PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1
        }
    }

    /// SubjectPublicKeyInfo "PUBLIC KEY" PEM.
    func publicKeyPEM() -> String? {
        OpenSSL.withWritableBIO { bio in PEM_write_bio_PUBKEY(bio, pointer) == 1 }
    }

    static func readPrivateKey(pem: String) -> EVPKey? {
        OpenSSL.withReadableBIO(pem) { bio in
            PEM_read_bio_PrivateKey(bio, nil, OpenSSL.refusePassphrase, nil)
        }.map { EVPKey(takingOwnershipOf: $0) }
    }

    static func readPublicKey(pem: String) -> EVPKey? {
        OpenSSL.withReadableBIO(pem) { bio in
            PEM_read_bio_PUBKEY(bio, nil, OpenSSL.refusePassphrase, nil)
        }.map { EVPKey(takingOwnershipOf: $0) }
    }
}
