/// Quoted-printable (RFC 2045 section 6.7), decoded leniently: "=XX" with either hex case is a byte,
/// "=" before a line break (after optional whitespace) is a soft break, any other "=" stays literal,
/// whitespace at the end of a line is dropped, line breaks are kept as they came (CRLF or LF).
public enum QuotedPrintable {
    public static func decode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let r = bytes.withContiguousStorageIfAvailable({ decode(buffer: $0, header: false) }) { return r }
        return Array(bytes).withUnsafeBufferPointer { decode(buffer: $0, header: false) }
    }

    /// The "Q" encoding of RFC 2047 encoded words: like quoted-printable, but "_" is a space.
    public static func decodeHeaderQ(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let r = bytes.withContiguousStorageIfAvailable({ decode(buffer: $0, header: true) }) { return r }
        return Array(bytes).withUnsafeBufferPointer { decode(buffer: $0, header: true) }
    }

    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    static func decode(buffer p: UnsafeBufferPointer<UInt8>, header: Bool) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(p.count)
        let n = p.count
        var i = 0
        while i < n {
            let b = p[i]
            switch b {
            case UInt8(ascii: "="):
                if i + 2 < n, let h = hexValue(p[i + 1]), let l = hexValue(p[i + 2]) {
                    out.append(h << 4 | l)
                    i += 3
                    continue
                }
                if !header {
                    var j = i + 1
                    while j < n, p[j] == 0x20 || p[j] == 0x09 { j += 1 }
                    if j == n { i = n; continue }
                    if p[j] == 0x0A { i = j + 1; continue }
                    if p[j] == 0x0D {
                        i = j + 1
                        if i < n, p[i] == 0x0A { i += 1 }
                        continue
                    }
                }
                out.append(b)
                i += 1
            case 0x20 where !header, 0x09 where !header:
                var j = i
                while j < n, p[j] == 0x20 || p[j] == 0x09 { j += 1 }
                if j == n || p[j] == 0x0A || p[j] == 0x0D {
                    i = j  // transport-added trailing whitespace
                } else {
                    out.append(contentsOf: p[i..<j])
                    i = j
                }
            case UInt8(ascii: "_") where header:
                out.append(0x20)
                i += 1
            default:
                out.append(b)
                i += 1
            }
        }
        return out
    }
}
