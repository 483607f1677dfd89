#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address with a port.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    /// The numeric host ("127.0.0.1", "::1").
    public let host: String
    public let port: Int
    public let family: Family

    /// Parses a numeric host. "localhost" means 127.0.0.1; "" means the IPv4 wildcard 0.0.0.0.
    /// IPv6 literals may be bracketed ("[::1]"). Host names are not resolved: Understudy is local.
    public init(host: String, port: Int) throws(IOError) {
        guard (0...65535).contains(port) else { throw IOError.invalidAddress("\(host):\(port)") }
        var literal = host
        if literal == "localhost" || literal == "" {
            literal = literal == "" ? "0.0.0.0" : "127.0.0.1"
        }
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            family = .ipv4
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            family = .ipv6
        } else {
            throw IOError.invalidAddress(host)
        }
        self.port = port
        // Normalise the spelling (e.g. "0:0::1" -> "::1").
        self.host = SocketAddress.numericHost(family: family, v4: v4, v6: v6)
    }

    init(family: Family, host: String, port: Int) {
        self.family = family; self.host = host; self.port = port
    }

    public var description: String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// This address with another port (after binding port 0).
    public func withPort(_ port: Int) -> SocketAddress { SocketAddress(family: family, host: host, port: port) }

    private static func numericHost(family: Family, v4: in_addr, v6: in6_addr) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var v4 = v4, v6 = v6
        let ok: Bool = buffer.withUnsafeMutableBufferPointer { out in
            switch family {
            case .ipv4: return inet_ntop(AF_INET, &v4, out.baseAddress, socklen_t(out.count)) != nil
            case .ipv6: return inet_ntop(AF_INET6, &v6, out.baseAddress, socklen_t(out.count)) != nil
            }
        }
        guard ok else { return "?" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Calls `body` with this address as a `sockaddr` for bind/connect.
    public func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(port).bigEndian
            _ = inet_pton(AF_INET, host, &sin.sin_addr)
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = UInt16(port).bigEndian
            _ = inet_pton(AF_INET6, host, &sin6.sin6_addr)
            return withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Reads an address from a `sockaddr_storage` filled by accept/getsockname/getpeername.
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee } }
            self.init(family: .ipv4,
                      host: SocketAddress.numericHost(family: .ipv4, v4: sin.sin_addr, v6: in6_addr()),
                      port: Int(UInt16(bigEndian: sin.sin_port)))
        case AF_INET6:
            let sin6 = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee } }
            self.init(family: .ipv6,
                      host: SocketAddress.numericHost(family: .ipv6, v4: in_addr(), v6: sin6.sin6_addr),
                      port: Int(UInt16(bigEndian: sin6.sin6_port)))
        default:
            return nil
        }
    }

    static func local(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage: storage) : nil
    }

    static func remote(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage: storage) : nil
    }
}
