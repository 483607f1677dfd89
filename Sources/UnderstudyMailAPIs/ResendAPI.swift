import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME

/// Resend: `POST /emails` answers `{"id": "<uuid>"}`, `POST /emails/batch` (an array, at most
/// 100) answers `{"data": [{"id": ...}]}`. Auth `Authorization: Bearer re_...`. Errors are
/// `{"statusCode", "name", "message"}`: 401 `missing_api_key`, 403 `invalid_api_key`, 422
/// `missing_required_field` / `validation_error`.
struct ResendAPI {
    let routes: EmailAPIRoutes
    static let maximumRecipients = 50
    static let maximumBatch = 100

    func register(on router: inout Router) {
        router.add(.post, "/resend/emails") { request, _ in send(request, batch: false) }
        router.add(.post, "/resend/emails/batch") { request, _ in send(request, batch: true) }
    }

    static func error(_ status: HTTPStatus, _ name: String, _ message: String) -> ProviderRejection {
        ProviderRejection(response: .json(["statusCode": JSONValue(Int(status.code)), "name": .string(name), "message": .string(message)],
                                          status: status))
    }

    func send(_ request: HTTPRequest, batch: Bool) -> HTTPReply {
        let routes = routes
        return routes.handle({
            guard let key = EmailAPIRoutes.bearer(request) else {
                throw Self.error(.unauthorized, "missing_api_key",
                                 "Missing API key in the authorization header. Include the following header in the request: Authorization: Bearer YOUR_API_KEY")
            }
            if let expected = routes.apiKey, key != expected { throw Self.error(.forbidden, "invalid_api_key", "API key is invalid") }
            guard let body = EmailAPIRoutes.json(request) else {
                throw Self.error(.unprocessableContent, "validation_error", "The request body is not valid JSON; send a JSON object.")
            }
            if batch {
                guard let items = body.arrayValue, !items.isEmpty else {
                    throw Self.error(.unprocessableContent, "validation_error", "The batch must be a non-empty array of emails.")
                }
                guard items.count <= Self.maximumBatch else {
                    throw Self.error(.unprocessableContent, "validation_error", "Too many emails in the batch: at most \(Self.maximumBatch).")
                }
                return try items.map { try email($0) }
            }
            return [try email(body)]
        }, source: "resend") { emails in
            if batch { return .json(["data": .array(emails.map { ["id": .string($0.providerID)] })]) }
            return .json(["id": .string(emails[0].providerID)])
        }
    }

    /// A string or an array of strings, each an address.
    static func addresses(_ value: JSONValue?, _ field: String) throws -> [MIMEAddress] {
        guard let value, !value.isNull else { return [] }
        let texts: [String]
        if let one = value.stringValue { texts = [one] } else if let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) {
            texts = list.compactMap(\.stringValue)
        } else {
            throw error(.unprocessableContent, "validation_error", "The `\(field)` field must be a string or an array of strings.")
        }
        return try texts.map { text in
            guard let address = EmailAddresses.parse(text) else {
                throw error(.unprocessableContent, "validation_error",
                            "Invalid `\(field)` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.")
            }
            return address
        }
    }

    func email(_ body: JSONValue) throws -> OutgoingEmail {
        guard body.objectValue != nil else { throw Self.error(.unprocessableContent, "validation_error", "Each email must be a JSON object.") }
        guard let fromText = body["from"]?.stringValue, !fromText.isEmpty else {
            throw Self.error(.unprocessableContent, "missing_required_field", "Missing `from` field.")
        }
        guard let from = EmailAddresses.parse(fromText) else {
            throw Self.error(.unprocessableContent, "validation_error",
                             "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.")
        }
        let to = try Self.addresses(body["to"], "to")
        guard !to.isEmpty else { throw Self.error(.unprocessableContent, "missing_required_field", "Missing `to` field.") }
        let cc = try Self.addresses(body["cc"], "cc")
        let bcc = try Self.addresses(body["bcc"], "bcc")
        guard to.count + cc.count + bcc.count <= Self.maximumRecipients else {
            throw Self.error(.unprocessableContent, "validation_error", "Too many recipients: at most \(Self.maximumRecipients).")
        }
        guard let subject = body["subject"]?.stringValue, !subject.isEmpty else {
            throw Self.error(.unprocessableContent, "missing_required_field", "Missing `subject` field.")
        }
        let now = routes.now()
        let id = MailIdentifiers.uuid()
        var message = MIMEComposition(date: now / 1000, messageID: "\(id)@resend.understudy.localhost")
        message.from = from
        message.to = to
        message.cc = cc
        message.replyTo = try Self.addresses(body["reply_to"] ?? body["replyTo"], "reply_to")
        message.subject = subject
        message.text = body["text"]?.stringValue
        message.html = body["html"]?.stringValue
        if message.text == nil, message.html == nil, let template = body["template"], !template.isNull {
            message.text = "Resend template \(template["id"]?.stringValue ?? "")\n\n" + (template["variables"] ?? [:]).serialized()
        }
        if let headers = body["headers"]?.objectValue {
            for (name, value) in headers.members { if let text = value.stringValue { message.headers.append((name, text)) } }
        }
        if let tags = body["tags"]?.arrayValue {
            let names = tags.compactMap { tag -> String? in
                guard let name = tag["name"]?.stringValue else { return nil }
                return tag["value"]?.stringValue.map { "\(name)=\($0)" } ?? name
            }
            if !names.isEmpty { message.headers.append(("X-Tags", names.joined(separator: ", "))) }
        }
        for attachment in body["attachments"]?.arrayValue ?? [] {
            let content: [UInt8]
            if let text = attachment["content"]?.stringValue {
                content = MIMEBase64.decode(Array(text.utf8))
            } else if let bytes = attachment["content"]?.arrayValue {
                content = bytes.compactMap { $0.intValue.flatMap { (0...255).contains($0) ? UInt8($0) : nil } }
            } else {
                throw Self.error(.unprocessableContent, "validation_error", "Each attachment needs `content` (base64 or bytes); `path` cannot be fetched offline.")
            }
            message.attachments.append(.init(filename: attachment["filename"]?.stringValue,
                                             contentType: attachment["content_type"]?.stringValue ?? attachment["contentType"]?.stringValue,
                                             content: content, contentID: attachment["content_id"]?.stringValue ?? attachment["inline_content_id"]?.stringValue))
        }
        return message.outgoing(source: "resend", envelopeFrom: from.address,
                                recipients: (to + cc + bcc).map(\.address), providerID: id)
    }
}
