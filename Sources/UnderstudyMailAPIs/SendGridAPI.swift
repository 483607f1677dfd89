import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME

/// SendGrid v3: `POST /v3/mail/send` answers 202 with an empty body and `X-Message-Id`. Each
/// personalization is one message (its own to/cc/bcc, subject, headers, substitutions);
/// `dynamic_template_data` is kept as JSON (an attachment, and the text when there is no
/// content). Auth `Authorization: Bearer SG...`. Errors are
/// `{"errors": [{"message", "field", "help"}]}`: 401 for auth, 400 for the rest.
struct SendGridAPI {
    let routes: EmailAPIRoutes
    static let maximumPersonalizations = 1000
    static let help = "http://sendgrid.com/docs/API_Reference/Web_API_v3/Mail/errors.html"

    func register(on router: inout Router) {
        router.add(.post, "/sendgrid/v3/mail/send") { request, _ in send(request) }
    }

    static func error(_ status: HTTPStatus, _ message: String, field: String?) -> ProviderRejection {
        ProviderRejection(response: .json(["errors": [["message": .string(message), "field": JSONValue(field),
                                                        "help": field == nil ? .null : .string(help)]]], status: status))
    }

    static func rejectMissing(_ message: String, _ field: String) -> ProviderRejection { error(.badRequest, message, field: field) }

    func send(_ request: HTTPRequest) -> HTTPReply {
        let routes = routes
        let messageID = EmailAPIRoutes.randomToken(16)
        return routes.handle({
            guard let key = EmailAPIRoutes.bearer(request) else {
                throw Self.error(.unauthorized, "authorization required", field: nil)
            }
            if let expected = routes.apiKey, key != expected {
                throw Self.error(.unauthorized, "The provided authorization grant is invalid, expired, or revoked", field: nil)
            }
            guard let body = EmailAPIRoutes.json(request), body.objectValue != nil else {
                throw Self.error(.badRequest, "Bad Request", field: nil)
            }
            return try emails(body, messageID: messageID)
        }, source: "sendgrid") { _ in
            HTTPResponse(status: .accepted, headers: ["X-Message-Id": messageID])
        }
    }

    static func person(_ value: JSONValue?, _ field: String) throws -> MIMEAddress? {
        guard let value, !value.isNull else { return nil }
        guard let email = value["email"]?.stringValue, EmailAddresses.isAddress(email) else {
            throw error(.badRequest, "Does not contain a valid address.", field: field)
        }
        return MIMEAddress(name: value["name"]?.stringValue, address: email)
    }

    static func people(_ value: JSONValue?, _ field: String) throws -> [MIMEAddress] {
        guard let value, !value.isNull else { return [] }
        guard let list = value.arrayValue else { throw error(.badRequest, "Invalid type. Expected: array, given: \(value.typeName).", field: field) }
        return try list.enumerated().compactMap { try person($1, "\(field).\($0).email") }
    }

    func emails(_ body: JSONValue, messageID: String) throws -> [OutgoingEmail] {
        guard let personalizations = body["personalizations"]?.arrayValue, !personalizations.isEmpty else {
            throw Self.rejectMissing("The personalizations field is required and must have at least one personalization.", "personalizations")
        }
        guard personalizations.count <= Self.maximumPersonalizations else {
            throw Self.error(.badRequest, "The personalizations field must have at most \(Self.maximumPersonalizations) personalizations.", field: "personalizations")
        }
        guard let from = try Self.person(body["from"], "from.email") else {
            throw Self.rejectMissing("The from object must be provided for every email send. It is an object that requires the email parameter, but may also contain a name parameter.", "from")
        }
        let templateID = body["template_id"]?.stringValue
        let contents = body["content"]?.arrayValue ?? []
        var text: String?
        var html: String?
        for block in contents {
            guard let type = block["type"]?.stringValue, let value = block["value"]?.stringValue else {
                throw Self.error(.badRequest, "The content value must be a string at least one character in length.", field: "content.0.value")
            }
            if type.lowercased() == "text/plain" { text = value } else if type.lowercased() == "text/html" { html = value }
        }
        if templateID == nil, text == nil, html == nil {
            throw Self.rejectMissing("Unless a valid template_id is provided, the content parameter is required. There must be at least one defined content block. We typically suggest both text/plain and text/html blocks are included, but only one block is required.", "content")
        }
        let replyTo = try Self.person(body["reply_to"], "reply_to.email").map { [$0] } ?? []
        var attachments: [MIMEComposition.Attachment] = []
        for (i, a) in (body["attachments"]?.arrayValue ?? []).enumerated() {
            guard let content = a["content"]?.stringValue, let filename = a["filename"]?.stringValue else {
                throw Self.error(.badRequest, "The attachment content and filename are required.", field: "attachments.\(i).content")
            }
            let inline = a["disposition"]?.stringValue == "inline"
            attachments.append(.init(filename: filename, contentType: a["type"]?.stringValue, content: MIMEBase64.decode(Array(content.utf8)),
                                     contentID: inline ? a["content_id"]?.stringValue : nil))
        }
        let categories = (body["categories"]?.arrayValue ?? []).compactMap(\.stringValue)
        let now = routes.now()
        var out: [OutgoingEmail] = []
        for (index, p) in personalizations.enumerated() {
            let to = try Self.people(p["to"], "personalizations.\(index).to")
            guard !to.isEmpty else {
                throw Self.rejectMissing("The to array is required for all personalization objects, and must have at least one email object with a valid email address.", "personalizations.\(index).to")
            }
            let cc = try Self.people(p["cc"], "personalizations.\(index).cc")
            let bcc = try Self.people(p["bcc"], "personalizations.\(index).bcc")
            let subject = p["subject"]?.stringValue ?? body["subject"]?.stringValue
            guard templateID != nil || !(subject ?? "").isEmpty else {
                throw Self.rejectMissing("The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.", "subject")
            }
            var message = MIMEComposition(date: now / 1000, messageID: "\(messageID).\(index)@sendgrid.understudy.localhost")
            message.from = try Self.person(p["from"], "personalizations.\(index).from.email") ?? from
            message.to = to
            message.cc = cc
            message.replyTo = replyTo
            message.subject = subject
            let substitutions = (p["substitutions"]?.objectValue?.members ?? []).compactMap { key, value in value.stringValue.map { (key, $0) } }
            func substitute(_ s: String?) -> String? {
                guard var s else { return nil }
                for (key, value) in substitutions where !key.isEmpty { s = s.replacing(key, with: value) }
                return s
            }
            message.text = substitute(text)
            message.html = substitute(html)
            message.subject = substitute(message.subject)
            message.attachments = attachments
            if let data = p["dynamic_template_data"], !data.isNull {
                let json = data.serialized()
                if message.text == nil && message.html == nil {
                    message.text = "SendGrid template \(templateID ?? "")\n\n" + json
                }
                message.attachments.append(.init(filename: "dynamic_template_data.json", contentType: "application/json", content: Array(json.utf8)))
            } else if message.text == nil && message.html == nil {
                message.text = "SendGrid template \(templateID ?? "")"
            }
            for source in [body["headers"], p["headers"]] {
                for (name, value) in source?.objectValue?.members ?? [] { if let v = value.stringValue { message.headers.append((name, v)) } }
            }
            if let templateID { message.headers.append(("X-SendGrid-Template-Id", templateID)) }
            if !categories.isEmpty { message.headers.append(("X-Tags", categories.joined(separator: ", "))) }
            out.append(message.outgoing(source: "sendgrid", envelopeFrom: message.from!.address,
                                        recipients: (to + cc + bcc).map(\.address), providerID: messageID))
        }
        return out
    }
}
