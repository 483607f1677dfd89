/// A name a leaf certificate is issued for, normalised (lowercase, no trailing dot), and whether
/// it goes in the certificate as a DNS name or an IP address.
struct LeafName: Hashable, Sendable {
    let text: String
    let isIPAddress: Bool

    /// Longest DNS name (RFC 1035).
    static let maximumLength = 253

    init(_ raw: String) throws(CertificateAuthorityError) {
        if CAFiles.isIPAddress(raw) {
            text = raw.lowercased()
            isIPAddress = true
            return
        }
        var name = Array(raw.utf8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        if name.last == UInt8(ascii: ".") { name.removeLast() }
        guard !name.isEmpty, name.count <= LeafName.maximumLength else { throw .invalidServerName(raw) }
        for label in name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                  label.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") })
            else { throw .invalidServerName(raw) }
        }
        text = String(decoding: name, as: UTF8.self)
        isIPAddress = false
    }
}
