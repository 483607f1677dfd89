/// A decoded email message. Parsing never fails: malformed input degrades to what can be read, and
/// `MIMELimits` bound the work (see `isTruncated`).
public struct MIMEMessage: Sendable, Hashable {
    /// Top-level header fields, in order, duplicates kept.
    public let headers: MIMEHeaders
    public let subject: String?
    public let from: [MIMEAddress]
    public let sender: [MIMEAddress]
    public let to: [MIMEAddress]
    public let cc: [MIMEAddress]
    public let bcc: [MIMEAddress]
    public let replyTo: [MIMEAddress]
    /// Message-ID without angle brackets.
    public let messageID: String?
    public let date: MIMEDate?
    /// The plain-text body: the text/plain parts that are not attachments (the plain branch of a
    /// multipart/alternative), joined by newlines; line breaks normalised to "\n".
    public let text: String?
    /// The HTML body (the HTML branch of a multipart/alternative); line breaks normalised to "\n".
    public let html: String?
    /// `html` converted to text by `HTMLText`, present only when there is no text/plain body.
    public let textFromHTML: String?
    /// Every leaf part, in order, numbered as IMAP does.
    public let parts: [MIMEPart]
    /// True when a `MIMELimits` bound stopped the parser somewhere (depth, parts, decoded size, headers).
    public let isTruncated: Bool

    public init(parsing bytes: some Collection<UInt8>, limits: MIMELimits = .init()) {
        var parser = MIMEParser(bytes: Array(bytes), limits: limits)
        let (headers, root) = parser.parseMessage()
        self.headers = headers
        subject = headers["subject"]
        func addresses(_ name: String) -> [MIMEAddress] {
            headers.all(named: name).flatMap { MIMEAddress.parseList($0.rawValue) }
        }
        from = addresses("from")
        sender = addresses("sender")
        to = addresses("to")
        cc = addresses("cc")
        bcc = addresses("bcc")
        replyTo = addresses("reply-to")
        if let id = headers["message-id"] {
            var s = Substring(id.trimmingSpaces())
            if s.hasPrefix("<") { s = s.dropFirst() }
            if let close = s.firstIndex(of: ">") { s = s[..<close] }
            messageID = s.isEmpty ? nil : String(s)
        } else {
            messageID = nil
        }
        date = headers.first(named: "date").map { MIMEDate(raw: $0.value) }

        var plain: [Int] = []
        parser.bodyParts(root, wanted: "text/plain", into: &plain)
        var htmlParts: [Int] = []
        parser.bodyParts(root, wanted: "text/html", into: &htmlParts)
        let partList = parser.parts
        text = plain.isEmpty ? nil : plain.compactMap { partList[$0].text }.joined(separator: "\n")
        html = htmlParts.first.flatMap { partList[$0].text }
        textFromHTML = text == nil ? html.map(HTMLText.plainText(fromHTML:)) : nil
        parts = partList
        isTruncated = parser.truncated
    }

    /// The part numbered `partNumber` ("1", "2.1", ...).
    public func part(_ partNumber: String) -> MIMEPart? {
        parts.first { $0.partNumber == partNumber }
    }

    /// The decoded bytes of the part numbered `partNumber`.
    public func bytes(ofPart partNumber: String) -> [UInt8]? {
        part(partNumber)?.bytes
    }

    /// Attachments only (see `MIMEPart.isAttachment`).
    public var attachments: [MIMEPart] { parts.filter(\.isAttachment) }

    /// Inline parts with a Content-ID (images referenced by "cid:" URLs in the HTML).
    public var inlineParts: [MIMEPart] { parts.filter { !$0.isAttachment && $0.contentID != nil } }

    /// The best text a reader would see: `text`, else `textFromHTML`.
    public var bestText: String? { text ?? textFromHTML }
}

extension MIMEPart {
    /// For a message/rfc822 (or message/global) part: the attached message, parsed. Each level is
    /// parsed only when asked, so attached-message nesting costs nothing up front.
    public func embeddedMessage(limits: MIMELimits = .init()) -> MIMEMessage? {
        guard type.type == "message", type.subtype == "rfc822" || type.subtype == "global", !isOpaque else {
            return nil
        }
        return MIMEMessage(parsing: bytes, limits: limits)
    }
}
