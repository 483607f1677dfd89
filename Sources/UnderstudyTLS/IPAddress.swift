#if canImport(Glibc)
import Glibc
#endif

/// IP literals, for hostname checks (an IP is matched against iPAddress names, never sent as SNI).
enum IPAddress {
    /// Whether `text` is an IPv4 dotted quad or an IPv6 address.
    static func isLiteral(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    /// The text form of 4 or 16 address bytes.
    static func text(_ bytes: [UInt8]) -> String {
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family != -1 else { return "" }
        var out = [CChar](repeating: 0, count: 64)
        guard inet_ntop(family, bytes, &out, socklen_t(out.count)) != nil else { return "" }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
