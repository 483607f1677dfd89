import COpenSSL

/// The TLS versions the engine speaks. TLS 1.1 and older are not representable: they are refused.
public enum TLSVersion: Int, Hashable, Sendable, Comparable, CustomStringConvertible {
    case tls12 = 0x0303
    case tls13 = 0x0304

    init?(openSSLVersion: Int32) {
        self.init(rawValue: Int(openSSLVersion))
    }

    var openSSLValue: Int32 { Int32(rawValue) }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { self == .tls12 ? "TLS 1.2" : "TLS 1.3" }
}
