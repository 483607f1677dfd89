import UnderstudyJSON
import UnderstudyMIME
import UnderstudyStore

/// The API's JSON shapes (camelCase).
enum InboxJSON {
    static func summary(_ s: StoredMessageSummary) -> JSONValue {
        let attachments = (try? JSONValue.parse(s.attachmentsJSON))?.arrayValue ?? []
        return [
            "id": .string(s.id),
            "messageId": JSONValue(s.messageID),
            "from": JSONValue(s.from ?? s.envelopeFrom),
            "to": JSONValue(s.to.isEmpty ? s.envelopeTo : s.to),
            "cc": JSONValue(s.cc),
            "subject": JSONValue(s.subject),
            "receivedAt": .string(Timestamp.format(milliseconds: s.receivedAt)),
            "size": JSONValue(s.size),
            "snippet": .string(s.snippet),
            "codes": JSONValue(s.codes),
            "attachments": JSONValue(attachments.filter { $0["inline"] == false }.count),
            "source": .string(s.source ?? "smtp"),
        ]
    }

    static func address(_ a: MIMEAddress) -> JSONValue {
        ["name": JSONValue(a.name), "address": .string(a.address)]
    }

    static func detail(_ m: StoredMessage, mime: MIMEMessage) -> JSONValue {
        let s = m.summary
        var headers = JSONObject()
        for h in mime.headers {
            let existing = headers[h.name]?.arrayValue ?? []
            headers[h.name] = .array(existing + [.string(h.value)])
        }
        return [
            "id": .string(s.id),
            "messageId": JSONValue(s.messageID),
            "from": JSONValue(s.from ?? s.envelopeFrom),
            "fromName": JSONValue(mime.from.first?.name),
            "to": JSONValue(s.to),
            "cc": JSONValue(s.cc),
            "replyTo": .array(mime.replyTo.map(address)),
            "envelope": ["from": .string(s.envelopeFrom), "to": JSONValue(s.envelopeTo)],
            "subject": JSONValue(s.subject),
            "date": JSONValue(s.date),
            "receivedAt": .string(Timestamp.format(milliseconds: s.receivedAt)),
            "size": JSONValue(s.size),
            "headers": .object(headers),
            "text": JSONValue(m.text),
            "html": JSONValue(m.html),
            "attachments": (try? JSONValue.parse(s.attachmentsJSON)) ?? [],
            "codes": JSONValue(s.codes),
            "links": (try? JSONValue.parse(m.linksJSON)) ?? [],
            "source": .string(s.source ?? "smtp"),
        ]
    }

    static func serverSentEvent(_ event: InboxEvent) -> [UInt8] {
        let name: String
        let data: JSONValue
        switch event {
        case .created(let d):
            name = "message"
            let m = d.message
            data = ["id": .string(d.id), "from": JSONValue(m.from ?? m.envelopeFrom), "to": JSONValue(m.to.isEmpty ? m.envelopeTo : m.to),
                    "subject": JSONValue(m.subject), "receivedAt": .string(Timestamp.format(milliseconds: m.receivedAt)),
                    "codes": JSONValue(m.codes)]
        case .deleted(let id):
            name = "deleted"
            data = ["id": .string(id)]
        case .cleared:
            name = "cleared"
            data = [:]
        }
        return Array("event: \(name)\ndata: \(data.serialized())\n\n".utf8)
    }
}
