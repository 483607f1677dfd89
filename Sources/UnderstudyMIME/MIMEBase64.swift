/// Lenient base64 as mail needs it: whitespace, line breaks and any byte outside the alphabet are
/// skipped; "=" ends a quantum (so concatenated padded chunks decode); a dangling partial quantum
/// yields whatever whole bytes it holds. Never fails.
public enum MIMEBase64 {
    static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            t[Int(c)] = UInt8(i)
        }
        t[Int(UInt8(ascii: "-"))] = 62  // base64url, seen in the wild
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    public static func decode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count / 4 * 3 + 3)
        var acc: UInt32 = 0
        var count = 0
        table.withUnsafeBufferPointer { t in
            for b in bytes {
                let v = t[Int(b)]
                if v == 0xFF {
                    if b == UInt8(ascii: "=") {
                        flush(acc, count, &out)
                        acc = 0
                        count = 0
                    }
                    continue
                }
                acc = (acc << 6) | UInt32(v)
                count += 1
                if count == 4 {
                    out.append(UInt8(truncatingIfNeeded: acc >> 16))
                    out.append(UInt8(truncatingIfNeeded: acc >> 8))
                    out.append(UInt8(truncatingIfNeeded: acc))
                    acc = 0
                    count = 0
                }
            }
        }
        flush(acc, count, &out)
        return out
    }

    @inline(__always)
    private static func flush(_ acc: UInt32, _ count: Int, _ out: inout [UInt8]) {
        switch count {
        case 2: out.append(UInt8(truncatingIfNeeded: acc >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: acc >> 10))
            out.append(UInt8(truncatingIfNeeded: acc >> 2))
        default: break
        }
    }
}
