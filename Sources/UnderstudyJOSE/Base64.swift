/// RFC 4648 section 4 base64 with padding. Decoding is strict: no whitespace, canonical trailing bits;
/// padding may be omitted.
public enum Base64 {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Base64Codec.encode(bytes, alphabet: Base64Codec.standardAlphabet, pad: true)
    }

    public static func decode(_ s: String) -> [UInt8]? {
        Base64Codec.decode(s.utf8, table: Base64Codec.standardTable, allowPadding: true)
    }
}

/// The shared table-driven codec behind `Base64` and `Base64URL`.
enum Base64Codec {
    static let standardAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let standardTable: [UInt8] = makeTable(standardAlphabet)
    static let urlTable: [UInt8] = makeTable(urlAlphabet)

    private static func makeTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }

    static func encode(_ bytes: some Sequence<UInt8>, alphabet: [UInt8], pad: Bool) -> String {
        withContiguousBytes(of: bytes) { input in
            var out: [UInt8] = []
            out.reserveCapacity((input.count + 2) / 3 * 4)
            var i = 0
            let n = input.count
            while i + 3 <= n {
                let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                out.append(alphabet[Int(v >> 18 & 63)])
                out.append(alphabet[Int(v >> 12 & 63)])
                out.append(alphabet[Int(v >> 6 & 63)])
                out.append(alphabet[Int(v & 63)])
                i += 3
            }
            let rest = n - i
            if rest == 1 {
                let v = UInt32(input[i]) << 16
                out.append(alphabet[Int(v >> 18 & 63)])
                out.append(alphabet[Int(v >> 12 & 63)])
                if pad { out.append(contentsOf: [0x3D, 0x3D]) }
            } else if rest == 2 {
                let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                out.append(alphabet[Int(v >> 18 & 63)])
                out.append(alphabet[Int(v >> 12 & 63)])
                out.append(alphabet[Int(v >> 6 & 63)])
                if pad { out.append(0x3D) }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// nil on any character outside the alphabet, a length that cannot be base64, misplaced or
    /// disallowed padding, or non-zero trailing bits (so every byte string has one encoding).
    static func decode(_ input: some Collection<UInt8>, table: [UInt8], allowPadding: Bool) -> [UInt8]? {
        withContiguousBytes(of: input) { chars in
            var n = chars.count
            var padding = 0
            while n > 0 && chars[n - 1] == 0x3D {
                n -= 1
                padding += 1
            }
            if padding > 0 {
                guard allowPadding, padding <= 2, chars.count % 4 == 0 else { return nil }
            }
            if n % 4 == 1 { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(n / 4 * 3 + 2)
            var acc: UInt32 = 0
            var bits = 0
            for i in 0..<n {
                let v = table[Int(chars[i])]
                if v == 0xFF { return nil }
                acc = (acc << 6 | UInt32(v)) & 0xFFFFFF
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                }
            }
            if bits > 0 && acc & ((1 << UInt32(bits)) - 1) != 0 { return nil }
            return out
        }
    }
}

/// Calls `body` with the bytes of `bytes` in contiguous memory, copying only when the sequence
/// does not already store them contiguously (arrays and native strings' UTF-8 views do).
func withContiguousBytes<R>(of bytes: some Sequence<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = bytes.withContiguousStorageIfAvailable({ body($0) }) { return result }
    return Array(bytes).withUnsafeBufferPointer { body($0) }
}
