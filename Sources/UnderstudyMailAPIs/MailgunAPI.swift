import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME

/// Mailgun: `POST /v3/{domain}/messages` with a multipart or urlencoded form (`from`, `to`,
/// `cc`, `bcc` repeated or comma-separated, `subject`, `text`, `html`, `attachment` and
/// `inline` files, `h:X-Header`, `o:tag`, `v:var`, `template` with `t:variables`), and
/// `/messages.mime` with the whole message in `message`. Auth is Basic `api:<key>`; without it
/// Mailgun answers 401 `Forbidden`. Success is `{"id": "<...@domain>", "message": "Queued.
/// Thank you."}`; errors are 400 `{"message": "..."}`.
struct MailgunAPI {
    let routes: EmailAPIRoutes
    static let maximumRecipients = 1000

    func register(on router: inout Router) {
        router.add(.post, "/mailgun/v3/:domain/messages") { request, p in send(request, domain: p["domain"] ?? "", mime: false) }
        router.add(.post, "/mailgun/v3/:domain/messages.mime") { request, p in send(request, domain: p["domain"] ?? "", mime: true) }
    }

    static func error(_ message: String) -> ProviderRejection {
        ProviderRejection(response: .json(["message": .string(message)], status: .badRequest))
    }

    struct Form {
        var fields: [(name: String, value: String, file: MultipartFormData.Field?)]
        func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }
        func first(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        func files(_ name: String) -> [MultipartFormData.Field] { fields.filter { $0.name == name }.compactMap(\.file) }
    }

    static func form(_ request: HTTPRequest) throws -> Form {
        if request.mediaType == "multipart/form-data" {
            do {
                let parsed = try MultipartFormData(request: request)
                return Form(fields: parsed.fields.map { ($0.name, $0.text, $0.filename != nil ? $0 : nil) })
            } catch {
                throw Self.error(error.message)
            }
        }
        if request.mediaType == "application/x-www-form-urlencoded" {
            return Form(fields: URLEncoding.formDecoded(request.body).map { ($0.name, $0.value, nil) })
        }
        throw Self.error("Send the message as multipart/form-data or application/x-www-form-urlencoded")
    }

    /// The password of `Authorization: Basic base64(api:key)`.
    static func basicPassword(_ request: HTTPRequest) -> String? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        let decoded = String(decoding: MIMEBase64.decode(Array(parts[1].utf8)), as: UTF8.self)
        guard let colon = decoded.firstIndex(of: ":") else { return nil }
        let password = String(decoded[decoded.index(after: colon)...])
        return password.isEmpty ? nil : password
    }

    static func addresses(_ values: [String], _ field: String) throws -> [MIMEAddress] {
        var out: [MIMEAddress] = []
        for value in values where !value.trimmed().isEmpty {
            guard let list = EmailAddresses.parseList(value) else { throw error("'\(field)' parameter is not a valid address. please check documentation") }
            out += list
        }
        return out
    }

    func send(_ request: HTTPRequest, domain: String, mime: Bool) -> HTTPReply {
        let routes = routes
        let id = "<\(String(routes.now(), radix: 10)).\(MailIdentifiers.hex(6))@\(domain.isEmpty ? "mailgun.understudy.localhost" : domain)>"
        return routes.handle({
            guard let key = Self.basicPassword(request), routes.apiKey == nil || key == routes.apiKey else {
                throw ProviderRejection(response: .text("Forbidden", status: .unauthorized))
            }
            let form = try Self.form(request)
            return [try mime ? rawEmail(form, id: id) : email(form, id: id)]
        }, source: "mailgun") { _ in
            .json(["id": .string(id), "message": "Queued. Thank you."])
        }
    }

    func rawEmail(_ form: Form, id: String) throws -> OutgoingEmail {
        let to = try Self.addresses(form.values("to"), "to")
        guard !to.isEmpty else { throw Self.error("'to' parameter is missing") }
        // A file part, or (urlencoded) the message as text.
        guard let content = form.files("message").first?.content ?? form.first("message").map({ Array($0.utf8) }) else {
            throw Self.error("'message' parameter is missing")
        }
        let raw = Array("\(IncomingMessage.sourceHeader): mailgun\r\n".utf8) + content
        let mime = MIMEMessage(parsing: content)
        return OutgoingEmail(raw: raw, envelopeFrom: mime.from.first?.address ?? "", recipients: to.map(\.address), providerID: id)
    }

    func email(_ form: Form, id: String) throws -> OutgoingEmail {
        guard let fromText = form.first("from"), !fromText.trimmed().isEmpty else { throw Self.error("'from' parameter is missing") }
        guard let from = EmailAddresses.parse(fromText) else { throw Self.error("'from' parameter is not a valid address. please check documentation") }
        let to = try Self.addresses(form.values("to"), "to")
        guard !to.isEmpty else { throw Self.error("'to' parameter is missing") }
        let cc = try Self.addresses(form.values("cc"), "cc")
        let bcc = try Self.addresses(form.values("bcc"), "bcc")
        guard (to + cc + bcc).count <= Self.maximumRecipients else { throw Self.error("Too many recipients: at most \(Self.maximumRecipients)") }
        guard let subject = form.first("subject"), !subject.isEmpty else { throw Self.error("'subject' parameter is missing") }
        let template = form.first("template")
        guard form.first("text") != nil || form.first("html") != nil || template != nil else {
            throw Self.error("Need at least one of 'text', 'html' or 'template' parameters specified")
        }
        var message = MIMEComposition(date: routes.now() / 1000, messageID: String(id.dropFirst().dropLast()))
        message.from = from
        message.to = to
        message.cc = cc
        message.subject = subject
        message.text = form.first("text")
        message.html = form.first("html")
        if let template, message.text == nil, message.html == nil {
            message.text = "Mailgun template \(template)\n\n" + (form.first("t:variables") ?? form.first("h:X-Mailgun-Variables") ?? "{}")
        }
        var variables = JSONObject()
        var tags: [String] = []
        for field in form.fields {
            if field.name.hasPrefix("h:") {
                message.headers.append((String(field.name.dropFirst(2)), field.value))
            } else if field.name.hasPrefix("v:") {
                variables[String(field.name.dropFirst(2))] = .string(field.value)
            } else if field.name == "o:tag" {
                tags.append(field.value)
            }
        }
        if !variables.keys.isEmpty { message.headers.append(("X-Mailgun-Variables", JSONValue.object(variables).serialized())) }
        if let replyTo = form.first("h:Reply-To").flatMap(EmailAddresses.parse) { message.replyTo = [replyTo] }
        if !tags.isEmpty { message.headers.append(("X-Tags", tags.joined(separator: ", "))) }
        for file in form.files("attachment") {
            message.attachments.append(.init(filename: file.filename, contentType: file.contentType, content: file.content))
        }
        for file in form.files("inline") {
            message.attachments.append(.init(filename: file.filename, contentType: file.contentType, content: file.content,
                                             contentID: file.filename ?? "inline"))
        }
        return message.outgoing(source: "mailgun", envelopeFrom: from.address, recipients: (to + cc + bcc).map(\.address), providerID: id)
    }
}
