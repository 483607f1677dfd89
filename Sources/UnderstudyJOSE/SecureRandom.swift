import COpenSSL

/// Bytes from OpenSSL's CSPRNG (seeded from the kernel), for keys, codes, nonces and ids.
public enum SecureRandom {
    /// Stops the process if the CSPRNG fails: continuing with predictable secrets is never safe.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= 1 << 20, "SecureRandom.bytes: count must be 0...1 MiB")
        if count == 0 { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "OpenSSL RAND_bytes failed; refusing to continue without a working CSPRNG")
        return out
    }
}
