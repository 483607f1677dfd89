/// A message to store, as the caller (the SMTP sink after MIME decoding) understands it. The store
/// keeps `raw` byte for byte and treats `linksJSON` / `attachmentsJSON` as opaque JSON text.
public struct NewMessage: Sendable, Equatable {
    /// When the message was received, in milliseconds since the Unix epoch.
    public var receivedAt: Int64
    /// The message exactly as received (headers and body), any bytes.
    public var raw: [UInt8]
    /// SMTP MAIL FROM; empty for the null reverse-path `<>`.
    public var envelopeFrom: String
    /// SMTP RCPT TO addresses.
    public var envelopeTo: [String]
    /// Decoded header values.
    public var from: String?
    public var to: [String]
    public var cc: [String]
    public var subject: String?
    public var messageID: String?
    public var date: String?
    /// Decoded bodies. Full-text search covers `text` (callers derive it from HTML when needed).
    public var text: String?
    public var html: String?
    /// A short preview for lists.
    public var snippet: String
    /// Verification codes found in the message, best first.
    public var codes: [String]
    /// JSON text built by the caller (e.g. `[{"url":"https://..."}]`), returned as is.
    public var linksJSON: String
    /// JSON text describing attachments (names, types, sizes), returned as is.
    public var attachmentsJSON: String
    /// The From header's display name, if it has one.
    public var fromName: String?
    /// Labels (Mailpit's tags), in the order given; compared ignoring case.
    public var tags: [String]
    /// Which way the message came in when not by SMTP: an HTTP email API's name (`resend`,
    /// `sendgrid`...) or `mailpit-send`; nil for SMTP.
    public var source: String?

    public init(receivedAt: Int64, raw: [UInt8], envelopeFrom: String = "", envelopeTo: [String] = [],
                from: String? = nil, to: [String] = [], cc: [String] = [], subject: String? = nil,
                messageID: String? = nil, date: String? = nil, text: String? = nil, html: String? = nil,
                snippet: String = "", codes: [String] = [], linksJSON: String = "[]",
                attachmentsJSON: String = "[]", fromName: String? = nil, tags: [String] = [], source: String? = nil) {
        self.receivedAt = receivedAt
        self.raw = raw
        self.envelopeFrom = envelopeFrom
        self.envelopeTo = envelopeTo
        self.from = from
        self.to = to
        self.cc = cc
        self.subject = subject
        self.messageID = messageID
        self.date = date
        self.text = text
        self.html = html
        self.snippet = snippet
        self.codes = codes
        self.linksJSON = linksJSON
        self.attachmentsJSON = attachmentsJSON
        self.fromName = fromName
        self.tags = tags
        self.source = source
    }

    /// Largest raw message the store accepts (the SMTP layer normally enforces a smaller SIZE).
    public static let maximumRawSize = 64 << 20
    /// Most addresses across envelopeTo, to and cc.
    public static let maximumAddresses = 5000
    /// Longest address or header value kept in the recipient index, in UTF-8 bytes.
    public static let maximumAddressLength = 1024
    /// Most codes kept.
    public static let maximumCodes = 100
    /// Most tags on one message, and the longest tag in UTF-8 bytes.
    public static let maximumTags = 100
    public static let maximumTagLength = 256

    func validate() throws(MessageStoreError) {
        guard raw.count <= Self.maximumRawSize else {
            throw .invalidMessage("it is \(raw.count) bytes; the limit is \(Self.maximumRawSize)")
        }
        let addressCount = envelopeTo.count + to.count + cc.count
        guard addressCount <= Self.maximumAddresses else {
            throw .invalidMessage("it has \(addressCount) recipient addresses; the limit is \(Self.maximumAddresses)")
        }
        guard codes.count <= Self.maximumCodes else {
            throw .invalidMessage("it has \(codes.count) codes; the limit is \(Self.maximumCodes)")
        }
        try Self.validate(tags: tags)
        for address in envelopeTo + to + cc + [envelopeFrom] where address.utf8.count > Self.maximumAddressLength {
            throw .invalidMessage("an address is \(address.utf8.count) bytes long; the limit is \(Self.maximumAddressLength)")
        }
    }

    static func validate(tags: [String]) throws(MessageStoreError) {
        guard tags.count <= maximumTags else {
            throw .invalidMessage("it has \(tags.count) tags; the limit is \(maximumTags)")
        }
        for tag in tags where tag.utf8.count > maximumTagLength || tag.isEmpty {
            throw .invalidMessage("a tag is \(tag.utf8.count) bytes long; use 1 to \(maximumTagLength)")
        }
    }

    /// Tags trimmed, without empty ones or repeats (ignoring case), in their first spelling.
    public static func normalizeTags(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for tag in tags {
            let trimmed = String(tag.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            if !trimmed.isEmpty, seen.insert(trimmed.lowercased()).inserted { out.append(trimmed) }
        }
        return out
    }

    /// The distinct lowercase addresses "messages to X" should find.
    public var recipientKeys: [String] {
        var seen = Set<String>()
        var keys: [String] = []
        for address in envelopeTo + to + cc {
            let key = MessageFilter.normalizeAddress(address)
            if !key.isEmpty, seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }
}
