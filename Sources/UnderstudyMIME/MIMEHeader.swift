/// One header field. `rawValue` is the value unfolded (line breaks removed, the whitespace after them
/// kept) and trimmed, with 8-bit bytes read as UTF-8 (RFC 6532; invalid bytes as Windows-1252);
/// `value` is `rawValue` with RFC 2047 encoded words decoded.
public struct MIMEHeader: Sendable, Hashable {
    public let name: String
    public let rawValue: String
    public let value: String

    public init(name: String, rawValue: String) {
        self.name = name
        self.rawValue = rawValue
        self.value = RFC2047.decode(rawValue)
    }

    /// True when this header's name is `other`, compared case-insensitively.
    public func hasName(_ other: String) -> Bool {
        let a = name.utf8
        let b = other.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            // ASCII letters differ only in bit 0x20; anything else must match exactly.
            guard x | 0x20 == y | 0x20, (x | 0x20) >= 0x61, (x | 0x20) <= 0x7A else { return false }
        }
        return true
    }
}
