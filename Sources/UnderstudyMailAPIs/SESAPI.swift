import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME

/// Amazon SES v2: `POST /v2/email/outbound-emails` with `Content.Simple` (subject, text and
/// HTML bodies, headers, attachments), `Content.Raw` (a whole MIME message, base64) or
/// `Content.Template` (its data kept as JSON). Auth is a SigV4 `Authorization` header; its
/// signature is not checked, only its presence (and the access key id when one is configured).
/// Success is `{"MessageId": "..."}`; errors are `{"message": "..."}` with the error type in
/// `x-amzn-ErrorType` (what the AWS SDKs read): 403 for auth, 400 `BadRequestException`.
struct SESAPI {
    let routes: EmailAPIRoutes
    static let maximumRecipients = 50

    func register(on router: inout Router) {
        router.add(.post, "/ses/v2/email/outbound-emails") { request, _ in send(request) }
    }

    static func error(_ status: HTTPStatus, _ type: String, _ message: String) -> ProviderRejection {
        ProviderRejection(response: .json(["__type": .string(type), "message": .string(message)], status: status,
                                          headers: ["x-amzn-ErrorType": type]))
    }

    static func bad(_ message: String) -> ProviderRejection { error(.badRequest, "BadRequestException", message) }

    /// The access key id from `Credential=AKID/date/region/ses/aws4_request`.
    static func accessKeyID(_ request: HTTPRequest) -> String? {
        guard let value = request.headers["Authorization"], value.hasPrefix("AWS4-HMAC-SHA256"),
              let range = value.firstRange(of: "Credential=") else { return nil }
        let id = value[range.upperBound...].prefix { $0 != "/" && $0 != "," && $0 != " " }
        return id.isEmpty ? nil : String(id)
    }

    func send(_ request: HTTPRequest) -> HTTPReply {
        let routes = routes
        let messageID = "0100" + MailIdentifiers.hex(8) + "-" + MailIdentifiers.uuid() + "-000000"
        return routes.handle({
            guard let key = Self.accessKeyID(request) else {
                throw Self.error(.forbidden, "MissingAuthenticationTokenException", "Missing Authentication Token")
            }
            if let expected = routes.apiKey, key != expected {
                throw Self.error(.forbidden, "UnrecognizedClientException", "The security token included in the request is invalid.")
            }
            guard let body = EmailAPIRoutes.json(request), body.objectValue != nil else {
                throw Self.error(.badRequest, "SerializationException", "The request body is not a JSON object.")
            }
            return [try email(body, messageID: messageID)]
        }, source: "ses") { _ in .json(["MessageId": .string(messageID)]) }
    }

    static func addresses(_ value: JSONValue?, _ field: String) throws -> [MIMEAddress] {
        guard let value, !value.isNull else { return [] }
        guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count else {
            throw bad("\(field) must be a list of strings")
        }
        return try list.map { text in
            guard let a = EmailAddresses.parse(text) else { throw bad("Illegal address: \(text)") }
            return a
        }
    }

    func email(_ body: JSONValue, messageID: String) throws -> OutgoingEmail {
        let destination = body["Destination"]
        let to = try Self.addresses(destination?["ToAddresses"], "ToAddresses")
        let cc = try Self.addresses(destination?["CcAddresses"], "CcAddresses")
        let bcc = try Self.addresses(destination?["BccAddresses"], "BccAddresses")
        guard (to + cc + bcc).count <= Self.maximumRecipients else { throw Self.bad("Recipient count exceeds \(Self.maximumRecipients).") }
        let fromText = body["FromEmailAddress"]?.stringValue
        guard let content = body["Content"], content.objectValue != nil else { throw Self.bad("Content is required.") }

        if let raw = content["Raw"] {
            guard let data = raw["Data"]?.stringValue else { throw Self.bad("Raw.Data is required.") }
            let bytes = MIMEBase64.decode(Array(data.utf8))
            let mime = MIMEMessage(parsing: bytes)
            let recipients = (to + cc + bcc).map(\.address)
            let fallback = (mime.to + mime.cc + mime.bcc).map(\.address)
            guard !(recipients.isEmpty && fallback.isEmpty) else { throw Self.bad("Missing final '@domain'") }
            let from = fromText.flatMap(EmailAddresses.parse)?.address ?? mime.from.first?.address ?? ""
            guard !from.isEmpty else { throw Self.bad("Missing required header 'From'.") }
            return OutgoingEmail(raw: Array("\(IncomingMessage.sourceHeader): ses\r\n".utf8) + bytes, envelopeFrom: from,
                                 recipients: recipients.isEmpty ? fallback : recipients, providerID: messageID)
        }

        guard let fromText, !fromText.isEmpty else { throw Self.bad("Missing required parameter FromEmailAddress.") }
        guard let from = EmailAddresses.parse(fromText) else { throw Self.bad("Illegal address: \(fromText)") }
        guard !(to + cc + bcc).isEmpty else { throw Self.bad("Missing final '@domain'") }
        var message = MIMEComposition(date: routes.now() / 1000, messageID: "\(messageID)@email.amazonses.com")
        message.from = from
        message.to = to
        message.cc = cc
        message.replyTo = try Self.addresses(body["ReplyToAddresses"], "ReplyToAddresses")
        if let simple = content["Simple"] {
            guard let subject = simple["Subject"]?["Data"]?.stringValue else { throw Self.bad("Subject is required.") }
            message.subject = subject
            message.text = simple["Body"]?["Text"]?["Data"]?.stringValue
            message.html = simple["Body"]?["Html"]?["Data"]?.stringValue
            guard message.text != nil || message.html != nil else { throw Self.bad("Body is required: Text, Html or both.") }
            for header in simple["Headers"]?.arrayValue ?? [] {
                if let name = header["Name"]?.stringValue, let value = header["Value"]?.stringValue { message.headers.append((name, value)) }
            }
            for a in simple["Attachments"]?.arrayValue ?? [] {
                guard let raw = a["RawContent"]?.stringValue else { throw Self.bad("Attachment RawContent is required.") }
                message.attachments.append(.init(filename: a["FileName"]?.stringValue, contentType: a["ContentType"]?.stringValue,
                                                 content: MIMEBase64.decode(Array(raw.utf8)),
                                                 contentID: a["ContentDisposition"]?.stringValue == "INLINE" ? a["ContentId"]?.stringValue : nil))
            }
        } else if let template = content["Template"] {
            let name = template["TemplateName"]?.stringValue ?? template["TemplateArn"]?.stringValue ?? ""
            let data = template["TemplateData"]?.stringValue ?? "{}"
            message.subject = "SES template \(name)"
            message.text = "SES template \(name)\n\n" + data
            message.attachments.append(.init(filename: "TemplateData.json", contentType: "application/json", content: Array(data.utf8)))
        } else {
            throw Self.bad("Content must have Simple, Raw or Template.")
        }
        let tags = (body["EmailTags"]?.arrayValue ?? []).compactMap { tag -> String? in
            guard let name = tag["Name"]?.stringValue else { return nil }
            return tag["Value"]?.stringValue.map { "\(name)=\($0)" } ?? name
        }
        if !tags.isEmpty { message.headers.append(("X-Tags", tags.joined(separator: ", "))) }
        return message.outgoing(source: "ses", envelopeFrom: from.address, recipients: (to + cc + bcc).map(\.address), providerID: messageID)
    }
}
