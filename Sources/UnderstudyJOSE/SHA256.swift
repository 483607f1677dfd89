import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface.
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        withContiguousBytes(of: bytes) { input in
            var digest = [UInt8](repeating: 0, count: byteCount)
            var length: UInt32 = 0
            let ok = withNonNullPointer(input) { pointer in
                EVP_Digest(pointer, input.count, &digest, &length, OpenSSL.sha256, nil)
            }
            precondition(ok == 1 && length == 32, "OpenSSL SHA-256 failed; the OpenSSL 3 installation is broken")
            return digest
        }
    }
}
