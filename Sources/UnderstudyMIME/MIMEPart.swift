import Glibc

/// One leaf of a message's MIME tree, with its decoded body.
public struct MIMEPart: Sendable, Hashable {
    /// IMAP-style section number: "1", "2.1", ...
    public let partNumber: String
    public let headers: MIMEHeaders
    /// The parsed Content-Type (defaults applied: text/plain, or message/rfc822 inside multipart/digest).
    public let type: MIMEContentType
    /// Content-Disposition, when the part has one that says inline or attachment.
    public let disposition: MIMEDisposition?
    /// The file name from Content-Disposition "filename" or Content-Type "name" (RFC 2231/2047 decoded).
    public let filename: String?
    /// Content-ID without angle brackets (what "cid:" URLs refer to).
    public let contentID: String?
    /// Content-Transfer-Encoding, lowercased ("7bit" when absent).
    public let transferEncoding: String
    /// True when a limit stopped decoding: `bytes` are then the raw, undecoded bytes.
    public let isOpaque: Bool
    /// The decoded body (transfer encoding removed; charset untouched).
    public let bytes: [UInt8]

    /// Lowercased "type/subtype".
    public var contentType: String { type.mimeType }
    public var charset: String? { type.charset }
    /// Decoded size in bytes.
    public var size: Int { bytes.count }

    /// An attachment rather than message body: disposition "attachment"; or, without a disposition,
    /// a file name or a non-text type, unless the part has a Content-ID (an inline, cid-referenced
    /// resource). An inline part is an attachment only when it is a named, non-text file without a
    /// Content-ID (Apple Mail sends attached files as "inline; filename=...").
    public var isAttachment: Bool {
        switch disposition {
        case .attachment: return true
        case .inline: return filename != nil && contentID == nil && type.type != "text"
        case nil:
            if contentID != nil { return false }
            if filename != nil { return true }
            return type.type != "text"
        }
    }

    /// The body as text, decoded from its charset, line breaks normalised to "\n", format=flowed
    /// unwrapped; nil for non-text parts.
    public var text: String? {
        guard type.type == "text" else { return nil }
        let text = MIMEPart.normalizeNewlines(Charset.decode(bytes, label: type.charset))
        if type.subtype == "plain", type.parameters["format"]?.lowercased() == "flowed" {
            return FormatFlowed.unwrap(text, deleteSpace: type.parameters["delsp"]?.lowercased() == "yes")
        }
        return text
    }

    static func normalizeNewlines(_ s: String) -> String {
        guard s.utf8.contains(0x0D) else { return s }
        var s = s
        // Runs between CRs are copied whole (memchr finds the next one): this runs on every
        // ingested message, whose lines are mostly long runs without a CR.
        return s.withUTF8 { source in
            String(unsafeUninitializedCapacity: source.count) { out in
                guard let base = source.baseAddress, let target = out.baseAddress else { return 0 }
                var count = 0
                var i = 0
                let end = source.count
                while i < end {
                    let start: UnsafePointer<UInt8> = base + i
                    var run: Int = end - i
                    if let found = memchr(start, 0x0D, run) {
                        run = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - start
                    }
                    (target + count).initialize(from: start, count: run)
                    count += run
                    i += run
                    guard i < end else { break }
                    target[count] = 0x0A  // CR LF, and a lone CR, become LF
                    count += 1
                    i += 1
                    if i < end && base[i] == 0x0A { i += 1 }
                }
                return count
            }
        }
    }
}
