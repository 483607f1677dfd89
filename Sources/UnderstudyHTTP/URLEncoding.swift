/// Percent-decoding (RFC 3986 §2.1) and application/x-www-form-urlencoded decoding (WHATWG URL §5.1).
public enum URLEncoding {
    /// Percent-encodes a query name or value: every byte but RFC 3986's unreserved characters.
    public static func queryComponent(_ s: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(b)
            default:
                out.append(contentsOf: [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict percent-decoding for paths: nil if a `%` is not followed by two hex digits or the result
    /// is not UTF-8.
    public static func percentDecoded(_ bytes: some Collection<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else {
            return String(validating: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first != bytes.endIndex else { return nil }
                let second = bytes.index(after: first)
                guard second != bytes.endIndex,
                      let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) else { return nil }
                out.append(high << 4 | low)
                index = bytes.index(after: second)
            } else {
                out.append(byte)
                index = bytes.index(after: index)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Lenient decoding as browsers do for forms: invalid escapes stay as written, `+` is a space when
    /// `plusIsSpace`, invalid UTF-8 becomes U+FFFD.
    public static func leniently(_ bytes: some Collection<UInt8>, plusIsSpace: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) {
                        out.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
                out.append(byte)
            } else if byte == UInt8(ascii: "+") && plusIsSpace {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `a=1&b=x+y&c` -> [("a", "1"), ("b", "x y"), ("c", "")]. Empty pieces are skipped.
    public static func formDecoded(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                result.append((name: leniently(piece[piece.startIndex..<equals], plusIsSpace: true),
                               value: leniently(piece[piece.index(after: equals)...], plusIsSpace: true)))
            } else {
                result.append((name: leniently(piece, plusIsSpace: true), value: ""))
            }
        }
        return result
    }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The parts of a request-target (RFC 9112 §3.2) as byte ranges of the raw target.
struct RequestTargetParts {
    enum Form { case origin, absolute, asterisk, authority }
    var form: Form
    /// Raw (still percent-encoded) path; "/" for an absolute-form target with an empty path, "*" for
    /// asterisk-form.
    var rawPath: Substring.UTF8View
    var rawQuery: Substring.UTF8View?

    init(_ target: String) {
        let utf8 = target.utf8
        if utf8.first == UInt8(ascii: "/") {
            form = .origin
            (rawPath, rawQuery) = RequestTargetParts.splitQuery(Substring(target).utf8)
        } else if target == "*" {
            form = .asterisk
            rawPath = Substring(target).utf8
            rawQuery = nil
        } else if let schemeEnd = RequestTargetParts.absoluteSchemeEnd(target) {
            form = .absolute
            let afterScheme = Substring(target)[schemeEnd...]
            let authorityEnd = afterScheme.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
                ?? afterScheme.endIndex
            let rest = afterScheme[authorityEnd...]
            if rest.utf8.first == UInt8(ascii: "/") {
                (rawPath, rawQuery) = RequestTargetParts.splitQuery(rest.utf8)
            } else {
                rawPath = Substring("/").utf8
                rawQuery = rest.isEmpty ? nil : rest.dropFirst().utf8
            }
        } else {
            form = .authority
            rawPath = Substring(target).utf8
            rawQuery = nil
        }
    }

    private static func splitQuery(_ s: Substring.UTF8View) -> (Substring.UTF8View, Substring.UTF8View?) {
        guard let mark = s.firstIndex(of: UInt8(ascii: "?")) else { return (s, nil) }
        return (s[s.startIndex..<mark], s[s.index(after: mark)...])
    }

    /// The index after "scheme://" for an http or https target, else nil.
    private static func absoluteSchemeEnd(_ target: String) -> String.Index? {
        guard let colon = target.firstIndex(of: ":") else { return nil }
        let scheme = target[target.startIndex..<colon]
        guard scheme.equalsLowercased("http") || scheme.equalsLowercased("https") else { return nil }
        let rest = target[target.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        return rest.index(rest.startIndex, offsetBy: 2)
    }
}
