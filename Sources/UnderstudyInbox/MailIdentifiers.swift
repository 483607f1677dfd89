/// Identifiers for messages built from HTTP API requests: a Message-ID, and the provider-style
/// ids the email APIs answer with (random, so two servers never hand out the same one).
public enum MailIdentifiers {
    /// `<time>.<random>@understudy.localhost`, without angle brackets.
    public static func messageID(_ milliseconds: Int64) -> String {
        String(milliseconds, radix: 36) + "." + hex(8) + "@understudy.localhost"
    }

    /// A random version-4 UUID in lowercase (Resend's and Postmark's id shape).
    public static func uuid() -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let text = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let c = Array(text)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }

    /// `count` random bytes as lowercase hex.
    public static func hex(_ count: Int) -> String {
        (0..<count).map { _ in
            let b = UInt8.random(in: 0...255)
            return (b < 16 ? "0" : "") + String(b, radix: 16)
        }.joined()
    }
}
