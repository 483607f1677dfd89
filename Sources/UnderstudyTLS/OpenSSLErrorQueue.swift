import COpenSSL

/// OpenSSL's per-thread error queue: every call that can fail starts from an empty queue and reads
/// the reason of what failed, so no stale error leaks into a later connection on the same thread.
enum OpenSSLErrorQueue {
    static func clear() { ERR_clear_error() }

    /// The reason of the earliest queued error (the root cause), and empties the queue.
    static func drain() -> String? {
        var first: UInt = 0
        while true {
            let e = ERR_get_error()
            if e == 0 { break }
            if first == 0 { first = e }
        }
        guard first != 0, let reason = ERR_reason_error_string(first) else { return nil }
        return String(cString: reason)
    }
}

/// Reads the whole content of a memory BIO into an array.
func readAll(from bio: OpaquePointer) -> [UInt8] {
    let pending = BIO_ctrl_pending(bio)
    guard pending > 0 else { return [] }
    var out = [UInt8](repeating: 0, count: pending)
    let read = out.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(clamping: $0.count)) }
    if read <= 0 { return [] }
    if Int(read) < out.count { out.removeSubrange(Int(read)...) }
    return out
}

/// Runs `body` on a read-only memory BIO over `bytes` (at most `limit` bytes).
func withReadableBIO<R>(_ bytes: [UInt8], limit: Int = 1 << 20, _ body: (OpaquePointer) -> R?) -> R? {
    guard !bytes.isEmpty, bytes.count <= limit else { return nil }
    return bytes.withUnsafeBytes { raw -> R? in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
        defer { BIO_free(bio) }
        return body(bio)
    }
}

/// A PEM passphrase callback that refuses: encrypted PEM is an error, never a terminal prompt.
let refusePassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in -1 }
