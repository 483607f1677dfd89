#if canImport(Glibc)
import Glibc
#endif

/// A client's IP address as a dictionary key, for counting connections per address: the 16 bytes
/// of an IPv6 address, an IPv4 address as its IPv4-mapped IPv6 form (so both spellings count as one).
struct PeerAddressKey: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    init(storage: sockaddr_storage) {
        var storage = storage
        (high, low) = withUnsafeBytes(of: &storage) { raw -> (UInt64, UInt64) in
            let family = raw.loadUnaligned(fromByteOffset: 0, as: sa_family_t.self)
            if Int32(family) == AF_INET6 {
                // sockaddr_in6: family, port, flow info, then the address.
                return (raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            }
            // sockaddr_in: family, port, then the address. As ::ffff:a.b.c.d, bytes 8-15 of the
            // IPv6 address are 0, 0, 0xFF, 0xFF, a, b, c, d: loaded like the IPv6 case above.
            let v4 = UInt64(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            return (0, UInt64(0xFFFF) << 16 | v4 << 32)  // as a little-endian load gives them
        }
    }
}
