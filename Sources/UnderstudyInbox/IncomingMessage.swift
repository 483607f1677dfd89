import UnderstudyExtract
import UnderstudyJSON
import UnderstudyMIME
import UnderstudyStore

/// Turns an accepted SMTP transaction into what the store keeps: decoded headers and bodies, a
/// snippet, the one-time codes and the links. Pure and thread-safe, so it runs on the SMTP
/// connection's own loop, in parallel, before the single store writer sees the message.
public enum IncomingMessage {
    /// Characters kept in a listing's snippet.
    static let snippetLength = 200

    public static func digest(raw: [UInt8], envelopeFrom: String, envelopeTo: [String], receivedAt: Int64,
                              source: String? = nil) -> NewMessage {
        digestWithLinks(raw: raw, envelopeFrom: envelopeFrom, envelopeTo: envelopeTo, receivedAt: receivedAt, source: source).message
    }

    /// The header a message built from an HTTP API request carries its source in, so a message
    /// recovered from the log (which keeps only the raw bytes and the envelope) keeps it too.
    public static let sourceHeader = "X-Understudy-Source"

    /// A message from the store's log that was never indexed (the process stopped first),
    /// decoded as it would have been on arrival.
    public static func recover(_ record: MessageLogRecord) -> NewMessage {
        let source = MIMEMessage(parsing: record.raw).headers[sourceHeader].flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
        return digest(raw: record.raw, envelopeFrom: record.envelopeFrom, envelopeTo: record.envelopeTo,
                      receivedAt: record.receivedAt, source: source)
    }

    /// Tags from an `X-Tags` header (comma-separated, as Mailpit reads it), within the store's limits.
    static func tags(_ mime: MIMEMessage) -> [String] {
        let listed = mime.headers.all(named: "X-Tags").flatMap { $0.value.split(separator: ",").map(String.init) }
        return Array(NewMessage.normalizeTags(listed).filter { $0.utf8.count <= NewMessage.maximumTagLength }
            .prefix(NewMessage.maximumTags))
    }

    /// The message to store, and its links as values, so waiters can match them without parsing
    /// the JSON text that was just written for the store.
    static func digestWithLinks(raw: [UInt8], envelopeFrom: String, envelopeTo: [String],
                                receivedAt: Int64, source: String? = nil) -> (message: NewMessage, links: [JSONValue]) {
        let mime = MIMEMessage(parsing: raw)
        let text = mime.bestText
        let extraction = Extractor.extract(subject: mime.subject, text: mime.text, html: mime.html)
        let links = extraction.links.map(linkJSON)
        let attachments: JSONValue = .array(mime.parts.filter { $0.isAttachment || $0.contentID != nil }.map(attachmentJSON))
        let message = NewMessage(
            receivedAt: receivedAt, raw: raw, envelopeFrom: envelopeFrom, envelopeTo: envelopeTo,
            from: mime.from.first?.address, to: mime.to.map(\.address), cc: mime.cc.map(\.address),
            subject: mime.subject, messageID: mime.messageID, date: mime.date?.raw,
            text: text, html: mime.html, snippet: snippet(text ?? ""),
            codes: extraction.codes.map(\.value),
            linksJSON: JSONValue.array(links).serialized(), attachmentsJSON: attachments.serialized(),
            fromName: mime.from.first?.name.flatMap { $0.isEmpty ? nil : $0 }, tags: tags(mime), source: source)
        return (message, links)
    }

    static func linkJSON(_ link: ExtractedLink) -> JSONValue {
        ["url": .string(link.url), "text": JSONValue(link.text), "purpose": .string(link.purpose.rawValue)]
    }

    static func attachmentJSON(_ part: MIMEPart) -> JSONValue {
        ["part": .string(part.partNumber), "name": JSONValue(part.filename), "type": .string(part.contentType),
         "size": JSONValue(part.size), "contentId": JSONValue(part.contentID), "inline": .bool(!part.isAttachment)]
    }

    /// The start of the text with runs of white space folded to one space: at most `snippetLength`
    /// characters, then "…" when there was more.
    static func snippet(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(snippetLength + 8)
        var count = 0
        var pendingSpace = false
        // Scalars, not Characters: grapheme breaking costs more than it gives a 200-character preview.
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 ? (value == 0x20 || (0x09...0x0D).contains(value)) : scalar.properties.isWhitespace {
                pendingSpace = count > 0
                continue
            }
            let needed = pendingSpace ? 2 : 1
            if count + needed > snippetLength {
                out.append(contentsOf: [0xE2, 0x80, 0xA6])  // "…"
                break
            }
            if pendingSpace { out.append(0x20) }
            if value < 0x80 { out.append(UInt8(value)) } else { UTF8.encode(scalar) { out.append($0) } }
            count += needed
            pendingSpace = false
        }
        return String(decoding: out, as: UTF8.self)
    }
}
