/// A message to build, as the HTTP send APIs (Mailpit's `/api/v1/send`, Resend, SendGrid...)
/// describe one: `render()` gives RFC 5322 bytes with MIME structure that `MIMEMessage` (and
/// any mail client) reads back. Pure: the caller supplies the date and the Message-ID.
///
/// Layout: text and HTML together are `multipart/alternative`; inline parts (with a Content-ID)
/// wrap that in `multipart/related`; attachments wrap everything in `multipart/mixed`. Text that
/// is ASCII with short lines goes as 7bit; anything else, and every attachment, as base64.
/// Header values lose CR and LF (no header injection) and non-ASCII goes as RFC 2047 words.
public struct MIMEComposition: Sendable, Equatable {
    public struct Attachment: Sendable, Equatable {
        public var filename: String?
        public var contentType: String
        public var content: [UInt8]
        /// Set for an inline part (an image the HTML shows with `cid:`).
        public var contentID: String?

        public init(filename: String?, contentType: String?, content: [UInt8], contentID: String? = nil) {
            self.filename = filename
            self.contentType = contentType.flatMap { MIMEComposition.isMediaType($0) ? $0 : nil }
                ?? MIMEComposition.guessType(filename)
            self.content = content
            self.contentID = contentID.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    public var from: MIMEAddress?
    public var to: [MIMEAddress] = []
    public var cc: [MIMEAddress] = []
    public var replyTo: [MIMEAddress] = []
    public var subject: String?
    public var text: String?
    public var html: String?
    public var attachments: [Attachment] = []
    /// Extra headers, in order; ones that would change the structure (Content-*, MIME-Version)
    /// or that this type writes itself are left out.
    public var headers: [(name: String, value: String)] = []
    /// Seconds since the epoch, for the Date header.
    public var date: Int64
    /// Without angle brackets.
    public var messageID: String

    public init(date: Int64, messageID: String) {
        self.date = date
        self.messageID = messageID
    }

    public static func == (a: MIMEComposition, b: MIMEComposition) -> Bool {
        a.from == b.from && a.to == b.to && a.cc == b.cc && a.replyTo == b.replyTo && a.subject == b.subject
            && a.text == b.text && a.html == b.html && a.attachments == b.attachments && a.date == b.date
            && a.messageID == b.messageID && a.headers.map { "\($0.name): \($0.value)" } == b.headers.map { "\($0.name): \($0.value)" }
    }

    /// The message's bytes, CRLF line endings throughout.
    public func render() -> [UInt8] {
        var out = ""
        func header(_ name: String, _ value: String) { out += name + ": " + value + "\r\n" }
        header("Date", Self.rfc5322Date(date))
        if let from { header("From", Self.address(from)) }
        if !to.isEmpty { header("To", Self.addressList(to)) }
        if !cc.isEmpty { header("Cc", Self.addressList(cc)) }
        if !replyTo.isEmpty { header("Reply-To", Self.addressList(replyTo)) }
        header("Subject", Self.encodedWords(subject ?? ""))
        header("Message-ID", "<" + Self.clean(messageID).filter { $0 != "<" && $0 != ">" } + ">")
        let written: Set<String> = ["date", "from", "to", "cc", "bcc", "reply-to", "subject", "message-id", "mime-version"]
        for (name, value) in headers {
            let lower = name.lowercased()
            guard Self.isToken(name), !written.contains(lower), !lower.hasPrefix("content-") else { continue }
            header(name, Self.encodedWords(value))
        }
        header("MIME-Version", "1.0")
        var bytes = Array(out.utf8)
        bytes += body()
        return bytes
    }

    // MARK: Structure

    private func body() -> [UInt8] {
        var alternatives: [[UInt8]] = []
        if let text { alternatives.append(Self.textPart(text, subtype: "plain")) }
        if let html { alternatives.append(Self.textPart(html, subtype: "html")) }
        var content = alternatives.count == 2 ? Self.multipart("alternative", alternatives)
            : alternatives.first ?? Self.textPart("", subtype: "plain")
        let inline = attachments.filter { $0.contentID != nil }
        if !inline.isEmpty {
            content = Self.multipart("related", [content] + inline.map { Self.attachmentPart($0, inline: true) })
        }
        let attached = attachments.filter { $0.contentID == nil }
        if !attached.isEmpty {
            content = Self.multipart("mixed", [content] + attached.map { Self.attachmentPart($0, inline: false) })
        }
        return content
    }

    /// A part: its headers, a blank line, its body.
    private static func part(_ headers: [String], _ body: [UInt8]) -> [UInt8] {
        Array((headers.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
    }

    private static func textPart(_ text: String, subtype: String) -> [UInt8] {
        let normalized = normalizeLineEndings(text)
        let sevenBit = normalized.utf8.allSatisfy { $0 < 0x80 && $0 != 0 }
            && normalized.split(separator: "\r\n", omittingEmptySubsequences: false).allSatisfy { $0.utf8.count <= 998 }
        if sevenBit {
            return part(["Content-Type: text/\(subtype); charset=utf-8", "Content-Transfer-Encoding: 7bit"],
                        Array(normalized.utf8) + (normalized.hasSuffix("\r\n") ? [] : [0x0D, 0x0A]))
        }
        return part(["Content-Type: text/\(subtype); charset=utf-8", "Content-Transfer-Encoding: base64"],
                    base64Lines(Array(text.utf8)))
    }

    private static func attachmentPart(_ a: Attachment, inline: Bool) -> [UInt8] {
        var headers = ["Content-Type: \(a.contentType)" + (a.filename.map { "; name=\(quotedParameter($0))" } ?? "")]
        let disposition = inline ? "inline" : "attachment"
        headers.append("Content-Disposition: \(disposition)" + (a.filename.map { "; filename=\(quotedParameter($0))" } ?? ""))
        if let id = a.contentID { headers.append("Content-ID: <\(clean(id).filter { $0 != "<" && $0 != ">" })>") }
        headers.append("Content-Transfer-Encoding: base64")
        return part(headers, base64Lines(a.content))
    }

    private static func multipart(_ subtype: String, _ parts: [[UInt8]]) -> [UInt8] {
        // Base64 never holds "=_", and the hash ties the boundary to the content, so a 7bit part
        // would have to contain its own hash to collide; checked anyway.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for p in parts { for byte in p { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 } }
        var boundary = "=_understudy_\(subtype)_" + String(hash, radix: 16)
        while parts.contains(where: { contains($0, Array(boundary.utf8)) }) { boundary += "_" }
        var out = Array("Content-Type: multipart/\(subtype); boundary=\"\(boundary)\"\r\n\r\n".utf8)
        for p in parts {
            out += Array("--\(boundary)\r\n".utf8) + p
            if out.last != 0x0A { out += [0x0D, 0x0A] }
        }
        out += Array("--\(boundary)--\r\n".utf8)
        return out
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return false }
        var i = 0
        while i + needle.count <= haystack.count {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }

    // MARK: Encoding

    static func normalizeLineEndings(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previousCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousCR { out += "\r" }
                out += "\n"
                previousCR = false
            } else {
                if previousCR { out += "\n" }
                out.unicodeScalars.append(scalar)
                previousCR = scalar == "\r"
            }
        }
        if previousCR { out += "\n" }
        return out
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func base64(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Base64 in lines of 76 characters, each ending in CRLF.
    static func base64Lines(_ bytes: [UInt8]) -> [UInt8] {
        let encoded = Array(base64(bytes).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count + encoded.count / 38 + 2)
        var i = 0
        while i < encoded.count {
            out += encoded[i..<min(i + 76, encoded.count)]
            out += [0x0D, 0x0A]
            i += 76
        }
        return out
    }

    /// CR, LF and other controls become spaces: a value never starts a new header.
    static func clean(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }

    /// Addresses one to a line once the list is long, so no line passes RFC 5322's 998.
    static func addressList(_ list: [MIMEAddress]) -> String {
        let rendered = list.map(address)
        return rendered.joined(separator: rendered.reduce(0) { $0 + $1.utf8.count + 2 } > 900 ? ",\r\n " : ", ")
    }

    /// The value as is when short printable ASCII, else RFC 2047 B-words of UTF-8, folded (which
    /// also keeps a long value's lines within RFC 5322's limit).
    static func encodedWords(_ value: String) -> String {
        let value = clean(value)
        if value.utf8.allSatisfy({ $0 < 0x80 }) && !value.contains("=?") && value.utf8.count <= 900 { return value }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in value {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?" + base64(chunk) + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + base64(chunk) + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// `Name <address>`, the name quoted or encoded as needed.
    static func address(_ a: MIMEAddress) -> String {
        let address = clean(a.address).filter { $0 != "<" && $0 != ">" && $0 != " " && $0 != "," }
        guard let name = a.name.map(clean), !name.isEmpty else { return address }
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            let escaped = name.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            return "\"\(escaped)\" <\(address)>"
        }
        return encodedWords(name) + " <\(address)>"
    }

    static func quotedParameter(_ value: String) -> String {
        let value = clean(value)
        if value.utf8.allSatisfy({ $0 < 0x80 }) {
            return "\"" + value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        }
        return "\"" + encodedWords(value).replacing("\r\n ", with: " ") + "\""
    }

    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 76 && name.utf8.allSatisfy { (33...126).contains($0) && $0 != UInt8(ascii: ":") }
    }

    static func isMediaType(_ value: String) -> Bool {
        let pieces = value.split(separator: "/", omittingEmptySubsequences: false)
        return pieces.count == 2 && pieces.allSatisfy { piece in
            !piece.isEmpty && piece.utf8.allSatisfy { (33...126).contains($0) && !"()<>@,;:\\\"/[]?=".utf8.contains($0) }
        }
    }

    /// A content type from the file name's extension; `application/octet-stream` otherwise.
    public static func guessType(_ filename: String?) -> String {
        let ext = filename.flatMap { name in name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } } ?? ""
        let known = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
                     "svg": "image/svg+xml", "pdf": "application/pdf", "txt": "text/plain", "html": "text/html",
                     "htm": "text/html", "csv": "text/csv", "json": "application/json", "ics": "text/calendar",
                     "zip": "application/zip", "xml": "application/xml"]
        return known[ext] ?? "application/octet-stream"
    }

    /// `Thu, 03 Dec 2026 12:00:00 +0000`.
    static func rfc5322Date(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil from days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(day)) \(months[Int(month - 1)]) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) +0000"
    }
}
