import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME

/// Postmark: `POST /email`, `/email/batch` (an array, at most 500), `/email/withTemplate` and
/// `/email/batchWithTemplates`. Auth `X-Postmark-Server-Token`. Success is
/// `{"To", "SubmittedAt", "MessageID", "ErrorCode": 0, "Message": "OK"}`; errors are
/// `{"ErrorCode", "Message"}` with 401 (code 10) for auth and 422 otherwise (300 invalid
/// request, 402 invalid JSON, 1101 template missing). Batches answer one result per message.
struct PostmarkAPI {
    let routes: EmailAPIRoutes
    static let maximumBatch = 500
    static let maximumRecipients = 50

    func register(on router: inout Router) {
        // postmarker posts to `/email/withTemplate/`, the docs to `/email/withTemplate`.
        for (path, kind) in [("/postmark/email", Kind.single), ("/postmark/email/batch", .batch),
                             ("/postmark/email/withTemplate", .template), ("/postmark/email/withTemplate/", .template),
                             ("/postmark/email/batchWithTemplates", .templateBatch), ("/postmark/email/batchWithTemplates/", .templateBatch)] {
            router.add(.post, path) { request, _ in send(request, kind) }
        }
    }

    enum Kind { case single, batch, template, templateBatch }

    static func error(_ status: HTTPStatus, _ code: Int, _ message: String) -> ProviderRejection {
        ProviderRejection(response: .json(["ErrorCode": JSONValue(code), "Message": .string(message)], status: status))
    }

    struct Result: Sendable {
        var email: OutgoingEmail?
        var answer: JSONValue
    }

    func send(_ request: HTTPRequest, _ kind: Kind) -> HTTPReply {
        let routes = routes
        return routes.handle({ () throws -> ([OutgoingEmail], [Result]) in
            guard let token = request.headers["X-Postmark-Server-Token"], !token.isEmpty else {
                throw Self.error(.unauthorized, 10, "No Account or Server API tokens were supplied in the HTTP headers. Please add a header for either X-Postmark-Server-Token or X-Postmark-Account-Token.")
            }
            if let expected = routes.apiKey, token != expected {
                throw Self.error(.unauthorized, 10, "The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token.")
            }
            guard let body = EmailAPIRoutes.json(request) else { throw Self.error(.unprocessableContent, 402, "Received invalid JSON input.") }
            switch kind {
            case .single, .template:
                let email = try self.email(body, template: kind == .template)
                return ([email.0], [Result(email: email.0, answer: email.1)])
            case .batch, .templateBatch:
                let items = kind == .batch ? body.arrayValue : body["Messages"]?.arrayValue
                guard let items else { throw Self.error(.unprocessableContent, 402, "Received invalid JSON input.") }
                guard items.count <= Self.maximumBatch else {
                    throw Self.error(.unprocessableContent, 300, "Too many messages in the batch: at most \(Self.maximumBatch).")
                }
                // A bad message fails alone, as Postmark answers each in the batch.
                let all = items.map { item -> Result in
                    do {
                        let (email, answer) = try self.email(item, template: kind == .templateBatch)
                        return Result(email: email, answer: answer)
                    } catch let rejection as ProviderRejection {
                        return Result(email: nil, answer: (try? JSONValue.parse(rejection.response.body)) ?? [:])
                    } catch {
                        return Result(email: nil, answer: ["ErrorCode": 300, "Message": .string("\(error)")])
                    }
                }
                return (all.compactMap(\.email), all)
            }
        }, source: "postmark") { _, all in
            switch kind {
            case .single, .template: return .json(all[0].answer)
            case .batch, .templateBatch: return .json(.array(all.map(\.answer)))
            }
        }
    }

    static func addresses(_ value: JSONValue?, _ field: String) throws -> [MIMEAddress] {
        guard let text = value?.stringValue, !text.trimmed().isEmpty else { return [] }
        guard let list = EmailAddresses.parseList(text) else { throw error(.unprocessableContent, 300, "Invalid '\(field)' address: '\(text)'.") }
        return list
    }

    func email(_ body: JSONValue, template: Bool) throws -> (OutgoingEmail, JSONValue) {
        guard body.objectValue != nil else { throw Self.error(.unprocessableContent, 402, "Received invalid JSON input.") }
        let fromText = body["From"]?.stringValue ?? ""
        guard let from = EmailAddresses.parse(fromText) else {
            throw Self.error(.unprocessableContent, 300, "Invalid 'From' address: '\(fromText)'.")
        }
        let to = try Self.addresses(body["To"], "To")
        let cc = try Self.addresses(body["Cc"], "Cc")
        let bcc = try Self.addresses(body["Bcc"], "Bcc")
        guard !(to + cc + bcc).isEmpty else { throw Self.error(.unprocessableContent, 300, "Zero recipients specified") }
        guard (to + cc + bcc).count <= Self.maximumRecipients else {
            throw Self.error(.unprocessableContent, 300, "Too many recipients: at most \(Self.maximumRecipients).")
        }
        let now = routes.now()
        let id = MailIdentifiers.uuid()
        var message = MIMEComposition(date: now / 1000, messageID: "\(id)@postmark.understudy.localhost")
        message.from = from
        message.to = to
        message.cc = cc
        message.replyTo = try Self.addresses(body["ReplyTo"], "ReplyTo")
        if template {
            let name = body["TemplateAlias"]?.stringValue ?? body["TemplateId"].map { $0.stringValue ?? $0.serialized() }
            guard let name, !name.isEmpty else {
                throw Self.error(.unprocessableContent, 1101, "The 'TemplateId' or 'TemplateAlias' must be specified.")
            }
            let model = (body["TemplateModel"] ?? [:]).serialized()
            message.subject = body["TemplateModel"]?["subject"]?.stringValue ?? "Postmark template \(name)"
            message.text = "Postmark template \(name)\n\n" + model
            message.attachments.append(.init(filename: "TemplateModel.json", contentType: "application/json", content: Array(model.utf8)))
            message.headers.append(("X-Postmark-Template", name))
        } else {
            message.subject = body["Subject"]?.stringValue
            message.text = body["TextBody"]?.stringValue
            message.html = body["HtmlBody"]?.stringValue
            guard message.text != nil || message.html != nil else {
                throw Self.error(.unprocessableContent, 300, "Provide either email TextBody or HtmlBody or both.")
            }
        }
        for header in body["Headers"]?.arrayValue ?? [] {
            if let name = header["Name"]?.stringValue, let value = header["Value"]?.stringValue { message.headers.append((name, value)) }
        }
        if let tag = body["Tag"]?.stringValue, !tag.isEmpty { message.headers.append(("X-Tags", tag)) }
        if let stream = body["MessageStream"]?.stringValue { message.headers.append(("X-PM-Message-Stream", stream)) }
        for a in body["Attachments"]?.arrayValue ?? [] {
            guard let name = a["Name"]?.stringValue, let content = a["Content"]?.stringValue else {
                throw Self.error(.unprocessableContent, 300, "Each attachment needs a Name and Content (base64).")
            }
            message.attachments.append(.init(filename: name, contentType: a["ContentType"]?.stringValue,
                                             content: MIMEBase64.decode(Array(content.utf8)),
                                             contentID: a["ContentID"]?.stringValue.map { $0.hasPrefix("cid:") ? String($0.dropFirst(4)) : $0 }))
        }
        let email = message.outgoing(source: "postmark", envelopeFrom: from.address, recipients: (to + cc + bcc).map(\.address), providerID: id)
        let answer: JSONValue = ["To": .string(body["To"]?.stringValue ?? ""), "SubmittedAt": .string(Timestamp.format(milliseconds: now)),
                                 "MessageID": .string(id), "ErrorCode": 0, "Message": "OK"]
        return (email, answer)
    }
}
