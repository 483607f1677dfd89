import UnderstudyJSON
import UnderstudyMIME

/// The body of Mailpit's `POST /api/v1/send`, checked, as a message to build and its envelope.
struct MailpitSendRequest {
    var composition: MIMEComposition
    var envelopeFrom: String
    var recipients: [String]

    struct Invalid: Error {
        var message: String
    }

    static let maximumRecipients = 1000

    init(_ body: JSONValue, date: Int64, messageID: String) throws(Invalid) {
        guard body.objectValue != nil else { throw Invalid(message: "the body must be a JSON object like {\"From\":{\"Email\":...},\"To\":[...]}") }
        func person(_ value: JSONValue?, _ field: String) throws(Invalid) -> MIMEAddress? {
            guard let value, !value.isNull else { return nil }
            guard let email = value["Email"]?.stringValue, Self.isAddress(email) else {
                throw Invalid(message: "\(field) needs an Email with a valid address, like {\"Email\":\"jane@example.com\",\"Name\":\"Jane\"}")
            }
            return MIMEAddress(name: value["Name"]?.stringValue, address: email)
        }
        func people(_ field: String) throws(Invalid) -> [MIMEAddress] {
            guard let value = body[field], !value.isNull else { return [] }
            guard let list = value.arrayValue else { throw Invalid(message: "\(field) must be an array of {\"Email\":...,\"Name\":...}") }
            var out: [MIMEAddress] = []
            for item in list { if let a = try person(item, field) { out.append(a) } }
            return out
        }
        guard let from = try person(body["From"], "From") else {
            throw Invalid(message: "From is required: {\"From\":{\"Email\":\"sender@example.com\"}}")
        }
        var composition = MIMEComposition(date: date, messageID: messageID)
        composition.from = from
        composition.to = try people("To")
        composition.cc = try people("Cc")
        composition.replyTo = try people("ReplyTo")
        var bcc: [String] = []
        if let value = body["Bcc"], !value.isNull {
            guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue.map(Self.isAddress) == true }) else {
                throw Invalid(message: "Bcc must be an array of addresses, like [\"jack@example.com\"]")
            }
            bcc = list.compactMap(\.stringValue)
        }
        let recipients = composition.to.map(\.address) + composition.cc.map(\.address) + bcc
        guard !recipients.isEmpty else { throw Invalid(message: "no recipients: give To, Cc or Bcc") }
        guard recipients.count <= Self.maximumRecipients else {
            throw Invalid(message: "\(recipients.count) recipients; the limit is \(Self.maximumRecipients)")
        }
        composition.subject = body["Subject"]?.stringValue
        composition.text = body["Text"]?.stringValue
        composition.html = body["HTML"]?.stringValue
        if let headers = body["Headers"], !headers.isNull {
            guard let object = headers.objectValue else { throw Invalid(message: "Headers must be an object of strings, like {\"X-IP\":\"1.2.3.4\"}") }
            for (name, value) in object.members {
                guard let text = value.stringValue else { throw Invalid(message: "header \(name) must be a string") }
                composition.headers.append((name, text))
            }
        }
        if let tags = body["Tags"], !tags.isNull {
            guard let list = tags.arrayValue?.compactMap(\.stringValue) else { throw Invalid(message: "Tags must be an array of strings") }
            if !list.isEmpty { composition.headers.append(("X-Tags", list.map { $0.replacing(",", with: " ") }.joined(separator: ", "))) }
        }
        if let attachments = body["Attachments"], !attachments.isNull {
            guard let list = attachments.arrayValue else { throw Invalid(message: "Attachments must be an array") }
            for item in list {
                guard let content = item["Content"]?.stringValue, let filename = item["Filename"]?.stringValue else {
                    throw Invalid(message: "each attachment needs Content (base64) and Filename")
                }
                composition.attachments.append(.init(filename: filename, contentType: item["ContentType"]?.stringValue,
                                                     content: MIMEBase64.decode(Array(content.utf8)),
                                                     contentID: item["ContentID"]?.stringValue))
            }
        }
        self.composition = composition
        self.envelopeFrom = from.address
        self.recipients = recipients
    }

    /// `local@domain`, printable, no spaces or brackets, at most 320 bytes.
    static func isAddress(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count <= 320, let at = text.lastIndex(of: "@"), at != text.startIndex,
              text.index(after: at) != text.endIndex else { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: ",") }
    }
}
