extension JSONValue {
    /// Compact JSON text. With `sortedKeys`, object members are written in key order (RFC 7638 thumbprints
    /// and reproducible output); otherwise in insertion order.
    public func serialized(sortedKeys: Bool = false) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }

    public func serializedBytes(sortedKeys: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONValue.write(self, into: &out, sortedKeys: sortedKeys)
        return out
    }

    /// Appends the compact JSON text of `value` to `out`.
    public static func write(_ value: JSONValue, into out: inout [UInt8], sortedKeys: Bool = false) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let n): out.append(contentsOf: String(n).utf8)
        case .double(let d):
            if d.isFinite {
                if abs(d) < 1e15, Double(Int64(d)) == d {
                    out.append(contentsOf: String(Int64(d)).utf8)
                } else {
                    out.append(contentsOf: String(d).utf8)
                }
            } else {
                out.append(contentsOf: "null".utf8)  // JSON has no NaN or infinity
            }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            let members = sortedKeys
                ? object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                : object.members
            for (n, member) in members.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string literal. Non-ASCII is written as UTF-8; "/" is not escaped.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        // Runs that need no escape (nearly all of a token or a message) are copied whole.
        s.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let b = bytes[index]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                appendEscaped(b, into: &out)
                runStart = index + 1
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ b: UInt8, into out: inout [UInt8]) {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5c, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5c, 0x5c])
        case 0x0a: out.append(contentsOf: [0x5c, UInt8(ascii: "n")])
        case 0x0d: out.append(contentsOf: [0x5c, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5c, UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [0x5c, UInt8(ascii: "b")])
        case 0x0c: out.append(contentsOf: [0x5c, UInt8(ascii: "f")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5c, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xf)]])
        }
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { serialized() }
}
