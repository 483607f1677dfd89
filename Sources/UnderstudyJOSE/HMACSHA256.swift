import COpenSSL

/// HMAC-SHA-256 (RFC 2104), for HS256 and for signing opaque values such as authorization codes.
public enum HMACSHA256 {
    public static let byteCount = 32

    public static func authenticationCode(for data: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        withContiguousBytes(of: key) { keyBytes in
            withContiguousBytes(of: data) { dataBytes in
                var mac = [UInt8](repeating: 0, count: byteCount)
                var length: UInt32 = 0
                let result = withNonNullPointer(keyBytes) { keyPointer in
                    withNonNullPointer(dataBytes) { dataPointer in
                        HMAC(OpenSSL.sha256, keyPointer, Int32(keyBytes.count), dataPointer, dataBytes.count,
                             &mac, &length)
                    }
                }
                precondition(result != nil && length == 32, "OpenSSL HMAC-SHA-256 failed; the OpenSSL 3 installation is broken")
                return mac
            }
        }
    }

    /// Compares two MACs in time independent of where they differ.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 } }
    }
}
