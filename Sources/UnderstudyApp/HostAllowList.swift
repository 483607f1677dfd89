#if canImport(Glibc)
import Glibc
#endif

/// The Host header values Understudy answers for. A browser page on another site can make its own
/// name resolve to 127.0.0.1 (DNS rebinding) and then call the API as a same-origin page: the Host
/// it sends is its own name, which is not on this list.
///
/// Always served: `localhost`, `*.localhost`, loopback literals (`127.0.0.0/8`, `[::1]`), with or
/// without a port; a request without Host (HTTP/1.0) counts as loopback. Also the configured
/// public URL's host, the provider hosts Understudy stands in for, a specific listen address, and
/// whatever `server.allowHosts` adds.
struct HostAllowList: Sendable {
    /// The provider hosts host routing answers as.
    static let providerHosts = Set(VirtualHosts.prefixes.keys)

    private var names: Set<String>
    /// `.example.test` for an allowed `*.example.test`.
    private var suffixes: [String] = []
    private var any = false

    init(allowHosts: [String], publicURL: String?, listenHosts: [String]) {
        names = Self.providerHosts
        for entry in allowHosts {
            let entry = entry.trimmingSpaces().lowercased()
            if entry == "*" {
                any = true
            } else if entry.hasPrefix("*.") {
                suffixes.append(String(entry.dropFirst()))
            } else if let name = Self.hostname(ofHeader: entry) {
                names.insert(name)
            }
        }
        if let publicURL, let name = Self.hostname(ofURL: publicURL) { names.insert(name) }
        for host in listenHosts where host != "0.0.0.0" && host != "::" && !host.isEmpty {
            names.insert(host.lowercased())
        }
    }

    /// Whether a request with this Host header (nil: none sent) may be answered.
    func allows(_ header: String?) -> Bool {
        if any { return true }
        guard let header, !header.isEmpty else { return true }
        if Self.isPlainLoopback(header) { return true }   // the hot path: no copies
        guard let name = Self.hostname(ofHeader: header) else { return false }
        if Self.isLoopback(name) || names.contains(name) || VirtualHosts.prefix(for: name) != nil { return true }
        return suffixes.contains { name.hasSuffix($0) }
    }

    /// `localhost` or `127.0.0.1`, with or without a port, checked on the bytes as they are.
    static func isPlainLoopback(_ header: String) -> Bool {
        var utf8 = header.utf8[...]
        for name in ["localhost", "127.0.0.1"] where utf8.starts(with: name.utf8) {
            utf8 = utf8.dropFirst(name.utf8.count)
            guard let colon = utf8.first else { return true }
            return colon == UInt8(ascii: ":") && utf8.count > 1
                && utf8.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        return false
    }

    /// `Example.COM.:8080` -> `example.com`, `[::1]:7080` -> `::1`; nil when it is not `host[:port]`.
    static func hostname(ofHeader header: String) -> String? {
        var text = Substring(header.lowercased())
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            let inner = text[text.index(after: text.startIndex)..<close]
            return inner.isEmpty ? nil : String(inner)
        }
        if let colon = text.firstIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard port.allSatisfy(\.isASCIIDigit) else { return nil }   // also refuses a second colon
            text = text[..<colon]
        }
        while text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 < 0x80 && $0 > 0x20 && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "@") }) else {
            return nil
        }
        return String(text)
    }

    /// The host of `scheme://[user@]host[:port][/path]`.
    static func hostname(ofURL url: String) -> String? {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return nil }
        var authority = parts[2]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { authority = authority[..<end] }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return hostname(ofHeader: String(authority))
    }

    /// `localhost`, `*.localhost`, `127.0.0.0/8` and `::1` (lowercased, without brackets or port).
    static func isLoopback(_ name: String) -> Bool {
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && Int($0)! <= 255 }) {
            return octets[0] == "127"
        }
        guard name.contains(":") else { return false }
        var address = in6_addr()
        guard inet_pton(AF_INET6, name, &address) == 1 else { return false }
        return withUnsafeBytes(of: &address) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
