import COpenSSL
import CShims

/// Small helpers around OpenSSL 3: algorithm handles fetched once, memory BIOs, signing with a
/// fresh context per call, and the error queue.
enum OpenSSL {
    /// SHA-256 fetched once from the default provider, so no per-call implicit fetch.
    nonisolated(unsafe) static let sha256: OpaquePointer = {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError("OpenSSL has no SHA-256 (EVP_MD_fetch failed); the OpenSSL 3 installation is broken")
        }
        return md
    }()

    /// Key type names with static storage: `EVP_PKEY_CTX_new_from_name` keeps the pointer.
    enum KeyType {
        case rsa, ec, ed25519

        private nonisolated(unsafe) static let names: [UnsafeMutablePointer<CChar>] = {
            let names: [String] = ["RSA", "EC", "ED25519"]
            return names.map { (name: String) -> UnsafeMutablePointer<CChar> in strdup(name)! }
        }()

        var cName: UnsafePointer<CChar> {
            switch self {
            case .rsa: return UnsafePointer(KeyType.names[0])
            case .ec: return UnsafePointer(KeyType.names[1])
            case .ed25519: return UnsafePointer(KeyType.names[2])
            }
        }
    }

    /// A PEM passphrase callback that refuses: encrypted PEM is reported as an error instead of
    /// OpenSSL prompting on the terminal.
    static let refusePassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in -1 }

    /// Largest PEM document accepted (a 16384-bit RSA private key is about 12 KiB).
    static let maximumPEMLength = 64 * 1024

    /// The reason of the most recent queued error (a short library string, never key material),
    /// and empties this thread's error queue so later calls do not see stale errors.
    static func drainErrors() -> String {
        var last: UInt = 0
        while true {
            let e = ERR_get_error()
            if e == 0 { break }
            last = e
        }
        guard last != 0, let reason = ERR_reason_error_string(last) else { return "no detail" }
        return String(cString: reason)
    }

    static func clearErrors() { ERR_clear_error() }

    /// Runs `body` on a read-only memory BIO over `text` (at most `maximumPEMLength` bytes).
    static func withReadableBIO<R>(_ text: String, _ body: (OpaquePointer) -> R?) -> R? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPEMLength else { return nil }
        return bytes.withUnsafeBytes { raw -> R? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            let result = body(bio)
            if result == nil { clearErrors() }
            return result
        }
    }

    /// Runs `body` on an empty memory BIO and returns what it wrote, as text.
    static func withWritableBIO(_ body: (OpaquePointer) -> Bool) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) else {
            clearErrors()
            return nil
        }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = withUnsafeMutablePointer(to: &data) { pointer in
            pointer.withMemoryRebound(to: CChar.self, capacity: 1) { BIO_ctrl(bio, BIO_CTRL_INFO, 0, $0) }
        }
        guard length > 0, let data else { return nil }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    enum Padding { case pkcs1, pss }

    /// One signature over `message` with a fresh `EVP_MD_CTX`. `digest` nil for Ed25519.
    static func digestSign(key: EVPKey, digest: OpaquePointer?, padding: Padding = .pkcs1,
                           message: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let ctx = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer? = nil
        guard EVP_DigestSignInit(ctx, &pctx, digest, nil, key.pointer) == 1 else {
            clearErrors()
            return nil
        }
        if padding == .pss {
            guard let pctx, configurePSS(pctx) else {
                clearErrors()
                return nil
            }
        }
        var length = 0
        let ok = withNonNullPointer(message) { pointer -> Bool in
            guard EVP_DigestSign(ctx, nil, &length, pointer, message.count) == 1 else { return false }
            return true
        }
        guard ok, length > 0 else {
            clearErrors()
            return nil
        }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = withNonNullPointer(message) { pointer in
            EVP_DigestSign(ctx, &signature, &length, pointer, message.count) == 1
        }
        guard signed else {
            clearErrors()
            return nil
        }
        if length < signature.count { signature.removeSubrange(length...) }
        return signature
    }

    static func digestVerify(key: EVPKey, digest: OpaquePointer?, padding: Padding = .pkcs1,
                             signature: [UInt8], message: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !signature.isEmpty, let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer? = nil
        guard EVP_DigestVerifyInit(ctx, &pctx, digest, nil, key.pointer) == 1 else {
            clearErrors()
            return false
        }
        if padding == .pss {
            guard let pctx, configurePSS(pctx) else {
                clearErrors()
                return false
            }
        }
        let result = signature.withUnsafeBufferPointer { sig in
            withNonNullPointer(message) { pointer in
                EVP_DigestVerify(ctx, sig.baseAddress, sig.count, pointer, message.count)
            }
        }
        if result != 1 { clearErrors() }
        return result == 1
    }

    /// RSASSA-PSS as RFC 7518 section 3.5 fixes it for PS256: SHA-256, MGF1 with SHA-256, salt 32.
    private static func configurePSS(_ pctx: OpaquePointer) -> Bool {
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, 32) == 1
            && EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, sha256) == 1
    }
}

/// Calls `body` with a pointer that is never nil, even for an empty buffer (some OpenSSL calls
/// treat a NULL data pointer specially).
func withNonNullPointer<R>(_ buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafePointer<UInt8>) -> R) -> R {
    if let base = buffer.baseAddress { return body(base) }
    var zero: UInt8 = 0
    return withUnsafePointer(to: &zero) { body($0) }
}

extension OpenSSL {
    /// `EVP_PKEY_fromdata` selections.
    static let selectPublicKey = CShims_EVP_PKEY_PUBLIC_KEY()
    static let selectKeyPair = CShims_EVP_PKEY_KEYPAIR()
}
