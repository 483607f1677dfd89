import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME
import UnderstudyStore

/// Mailpit's JSON shapes (its swagger: PascalCase fields in messages, lowercase in the list
/// envelope), with Understudy's extras where they leave room: `Codes`, `Links`, `Source`.
enum MailpitJSON {
    static func address(name: String?, address: String) -> JSONValue {
        ["Name": .string(name ?? ""), "Address": .string(address)]
    }

    static func addresses(_ list: [MIMEAddress]) -> JSONValue {
        .array(list.map { address(name: $0.name, address: $0.address) })
    }

    /// Envelope recipients in neither To nor Cc: the blind copies.
    static func blindCopies(envelope: [String], shown: [String]) -> [String] {
        let seen = Set(shown.map(MessageFilter.normalizeAddress))
        var out: [String] = []
        var added = Set<String>()
        for recipient in envelope {
            let key = MessageFilter.normalizeAddress(recipient)
            if !seen.contains(key), added.insert(key).inserted { out.append(recipient) }
        }
        return out
    }

    static func attachmentCount(_ json: String) -> Int {
        ((try? JSONValue.parse(json))?.arrayValue ?? []).filter { $0["inline"] == false }.count
    }

    static func summary(_ s: StoredMessageSummary) -> JSONValue {
        [
            "ID": .string(s.id),
            "MessageID": .string(messageID(s.messageID)),
            "Read": .bool(s.isRead),
            "From": address(name: s.fromName, address: s.from ?? s.envelopeFrom),
            "To": .array((s.to.isEmpty ? s.envelopeTo : s.to).map { address(name: nil, address: $0) }),
            "Cc": .array(s.cc.map { address(name: nil, address: $0) }),
            "Bcc": .array(blindCopies(envelope: s.envelopeTo, shown: s.to + s.cc).map { address(name: nil, address: $0) }),
            "ReplyTo": [],
            "Subject": .string(s.subject ?? ""),
            "Created": .string(Timestamp.format(milliseconds: s.receivedAt)),
            "Username": "",
            "Tags": JSONValue(s.tags),
            "Size": JSONValue(s.size),
            "Attachments": JSONValue(attachmentCount(s.attachmentsJSON)),
            "Snippet": .string(s.snippet),
            "Codes": JSONValue(s.codes),
            "Source": .string(s.source ?? "smtp"),
        ]
    }

    static func messageID(_ id: String?) -> String {
        (id ?? "").filter { $0 != "<" && $0 != ">" }
    }

    static func attachment(_ part: MIMEPart) -> JSONValue {
        ["PartID": .string(part.partNumber), "FileName": .string(part.filename ?? ""),
         "ContentType": .string(part.contentType), "ContentID": .string(part.contentID ?? ""),
         "Size": JSONValue(part.size)]
    }

    static func detail(_ m: StoredMessage, mime: MIMEMessage) -> JSONValue {
        let s = m.summary
        let from = mime.from.first.map { address(name: $0.name, address: $0.address) }
            ?? address(name: nil, address: s.from ?? s.envelopeFrom)
        let shown = mime.to.map(\.address) + mime.cc.map(\.address) + mime.bcc.map(\.address)
        let bcc = addresses(mime.bcc).arrayValue! + blindCopies(envelope: s.envelopeTo, shown: shown).map { address(name: nil, address: $0) }
        let date = mime.date?.secondsSince1970.map { $0 * 1000 } ?? s.receivedAt
        let unsubscribe = mime.headers["List-Unsubscribe"] ?? ""
        return [
            "ID": .string(s.id),
            "MessageID": .string(messageID(s.messageID)),
            "From": from,
            "To": addresses(mime.to),
            "Cc": addresses(mime.cc),
            "Bcc": .array(bcc),
            "ReplyTo": addresses(mime.replyTo),
            "ReturnPath": .string(s.envelopeFrom),
            "Subject": .string(s.subject ?? ""),
            "ListUnsubscribe": ["Header": .string(unsubscribe), "Links": [], "Errors": "", "HeaderPost": .string(mime.headers["List-Unsubscribe-Post"] ?? "")],
            "Date": .string(Timestamp.format(milliseconds: date)),
            "Tags": JSONValue(s.tags),
            "Username": "",
            "Text": .string(m.text ?? ""),
            "HTML": .string(m.html ?? ""),
            "Size": JSONValue(s.size),
            "Inline": .array(mime.parts.filter { !$0.isAttachment && $0.contentID != nil }.map(attachment)),
            "Attachments": .array(mime.parts.filter(\.isAttachment).map(attachment)),
            "Read": .bool(s.isRead),
            "Created": .string(Timestamp.format(milliseconds: s.receivedAt)),
            "Codes": JSONValue(s.codes),
            "Links": (try? JSONValue.parse(m.linksJSON)) ?? [],
            "Source": .string(s.source ?? "smtp"),
        ]
    }

    /// Header names to every value, names sorted (as Mailpit answers `/headers`). Names are in
    /// Go's canonical form, as Mailpit's are: `Message-Id`, `Mime-Version`.
    static func headers(_ mime: MIMEMessage) -> JSONValue {
        var grouped: [String: [String]] = [:]
        var order: [String] = []
        for h in mime.headers {
            let name = canonicalName(h.name)
            if grouped[name] == nil { order.append(name) }
            grouped[name, default: []].append(h.value)
        }
        var object = JSONObject()
        for name in order.sorted() { object[name] = JSONValue(grouped[name]!) }
        return .object(object)
    }

    /// `message-ID` -> `Message-Id`: each dash-separated word capitalized, the rest lowercase
    /// (Go's `CanonicalMIMEHeaderKey`, for ASCII names).
    static func canonicalName(_ name: String) -> String {
        var out = ""
        var upper = true
        for c in name {
            out += upper ? c.uppercased() : c.lowercased()
            upper = c == "-"
        }
        return out
    }
}
