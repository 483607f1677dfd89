import Dispatch
import Synchronization
import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME

/// The HTTP email APIs auth services send through, captured into the inbox: Resend, SendGrid,
/// Postmark, Mailgun and Amazon SES v2, each on its real paths under a prefix (`/resend/emails`,
/// `/sendgrid/v3/mail/send`, `/postmark/email`, `/mailgun/v3/{domain}/messages`,
/// `/ses/v2/email/outbound-emails`), which the app's host routing also serves as the real
/// hostnames (`api.resend.com/emails`...).
///
/// Each request is checked as the provider checks it (its auth header present, and equal to
/// `apiKey` when one is configured; the required fields), answered in the provider's success
/// or error shape, and stored as a MIME message built from it, through the same ingest as SMTP,
/// so codes, links, search and waits see it. The stored message names its API (`source`).
public struct EmailAPIRoutes: Sendable {
    public let inbox: Inbox
    /// The key every provider must be sent (SES: the access key id); nil accepts any.
    public let apiKey: String?
    let clock: @Sendable () -> Int64

    /// Each provider's prefix on localhost, and the hostnames that are routed to it.
    public static let prefixes: [(prefix: String, hosts: [String])] = [
        ("/resend", ["api.resend.com"]),
        ("/sendgrid", ["api.sendgrid.com"]),
        ("/postmark", ["api.postmarkapp.com"]),
        ("/mailgun", ["api.mailgun.net", "api.eu.mailgun.net"]),
        ("/ses", ["email.us-east-1.amazonaws.com", "email.us-east-2.amazonaws.com", "email.us-west-2.amazonaws.com",
                  "email.eu-west-1.amazonaws.com", "email.eu-central-1.amazonaws.com", "email.ap-southeast-2.amazonaws.com"]),
    ]

    /// `email.<region>.amazonaws.com` for any region.
    public static func isSESHost(_ host: String) -> Bool {
        guard host.hasPrefix("email."), host.hasSuffix(".amazonaws.com") else { return false }
        let region = host.dropFirst("email.".count).dropLast(".amazonaws.com".count)
        return !region.isEmpty && region.utf8.count <= 32
            && region.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") }
    }

    public init(inbox: Inbox, apiKey: String?, clock: @escaping @Sendable () -> Int64) {
        self.inbox = inbox
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.clock = clock
    }

    public func register(on router: inout Router) {
        ResendAPI(routes: self).register(on: &router)
        SendGridAPI(routes: self).register(on: &router)
        PostmarkAPI(routes: self).register(on: &router)
        MailgunAPI(routes: self).register(on: &router)
        SESAPI(routes: self).register(on: &router)
    }

    /// Runs `build` on the worker pool; stores the messages it returns, then answers with
    /// `success` (given what `build` returned beside them). A rejection is answered as is; a
    /// store that cannot take mail answers 503.
    func handle<Context: Sendable>(_ build: @escaping @Sendable () throws -> ([OutgoingEmail], Context), source: String,
                                   success: @escaping @Sendable ([OutgoingEmail], Context) -> HTTPResponse) -> HTTPReply {
        .blocking { [inbox] in
            let emails: [OutgoingEmail]
            let context: Context
            do { (emails, context) = try build() } catch let rejection as ProviderRejection {
                return .response(rejection.response)
            } catch {
                return .response(.problem(.badRequest, error: "invalid_request", message: "\(error)"))
            }
            for email in emails {
                let done = DispatchSemaphore(value: 0)
                let outcome = Mutex<InboxError?>(nil)
                inbox.accept(raw: email.raw, envelopeFrom: email.envelopeFrom, envelopeTo: email.recipients, source: source) { result in
                    if case .failure(let error) = result { outcome.withLock { $0 = error } }
                    done.signal()
                }
                done.wait()
                if let error = outcome.withLock({ $0 }) {
                    inbox.report("understudy: refused a message from <\(email.envelopeFrom)> sent through the \(source) API (HTTP 503): \(error)")
                    var response = HTTPResponse.problem(.serviceUnavailable, error: error.errorCode, message: error.description)
                    response.headers.add(name: "Retry-After", value: "1")
                    return .response(response)
                }
            }
            return .response(success(emails, context))
        }
    }

    /// `handle` for requests whose answer needs only the stored messages.
    func handle(_ build: @escaping @Sendable () throws -> [OutgoingEmail], source: String,
                success: @escaping @Sendable ([OutgoingEmail]) -> HTTPResponse) -> HTTPReply {
        handle({ (try build(), ()) }, source: source) { emails, _ in success(emails) }
    }

    /// The key from `Authorization: Bearer <key>`, or nil.
    static func bearer(_ request: HTTPRequest) -> String? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let key = String(parts[1]).trimmed()
        return key.isEmpty ? nil : key
    }

    /// The body as JSON whatever the Content-Type says (SDKs differ), or nil when it is not JSON.
    static func json(_ request: HTTPRequest) -> JSONValue? {
        try? JSONValue.parse(request.body)
    }

    func now() -> Int64 { clock() }

    /// Base64 (standard or URL alphabet) of `count` random bytes, without padding.
    static func randomToken(_ count: Int) -> String {
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255) }
        return MIMEComposition.base64(bytes).replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }
}
