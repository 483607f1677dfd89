import UnderstudyMIME

/// Address checks and parsing shared by the providers.
enum EmailAddresses {
    /// `local@domain`, printable, no spaces or brackets, at most 320 bytes.
    static func isAddress(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count <= 320, let at = text.lastIndex(of: "@"), at != text.startIndex,
              text.index(after: at) != text.endIndex else { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: ",") }
    }

    /// `alice@example.com` or `Alice <alice@example.com>`; nil when it is neither.
    static func parse(_ text: String) -> MIMEAddress? {
        let trimmed = text.trimmed()
        if isAddress(trimmed) { return MIMEAddress(name: nil, address: trimmed) }
        guard let parsed = MIMEAddress.parseList(trimmed).first, MIMEAddress.parseList(trimmed).count == 1,
              isAddress(parsed.address) else { return nil }
        return parsed
    }

    /// A comma-separated list (Postmark's, Mailgun's); nil when some entry is not an address.
    static func parseList(_ text: String) -> [MIMEAddress]? {
        let list = MIMEAddress.parseList(text)
        guard list.allSatisfy({ isAddress($0.address) }) else { return nil }
        return list
    }
}

extension String {
    func trimmed() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
