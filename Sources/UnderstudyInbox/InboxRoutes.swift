import Dispatch
import Synchronization
import UnderstudyExtract
import UnderstudyHTTP
import UnderstudyJSON
import UnderstudyMIME
import UnderstudyStore

/// The mail sink's HTTP API under `/api`: listing, reading, deleting, waiting for codes and links,
/// and server-sent events.
public struct InboxRoutes: Sendable {
    public let inbox: Inbox
    /// The longest `wait` accepted, in seconds.
    public static let maximumWait = 300

    public init(inbox: Inbox) { self.inbox = inbox }

    /// Every route but the event stream answers only once the messages already answered 250 are
    /// indexed (`Inbox.consistent`), so a test that sends mail and then asks always finds it; and each
    /// runs on the server's worker pool (`blocking`), since it reads SQLite or the message log, so a
    /// slow search never holds up the SMTP sessions on a loop thread.
    public func register(on router: inout Router) {
        func indexed(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
            router.add(method, pattern) { [self] request, parameters in
                inbox.consistent { .blocking { handler(request, parameters) } }
            }
        }
        indexed(.get, "/api/messages") { [self] request, _ in respond { try list(request) } }
        indexed(.delete, "/api/messages") { [self] _, _ in respond { .json(["deleted": JSONValue(try inbox.deleteAll())]) } }
        indexed(.get, "/api/messages/:id") { [self] _, p in respond { try detail(p["id"] ?? "") } }
        indexed(.delete, "/api/messages/:id") { [self] _, p in
            respond {
                let id = p["id"] ?? ""
                guard try inbox.delete(id: id) else { throw Self.notFound(id) }
                return HTTPResponse(status: .noContent)
            }
        }
        indexed(.get, "/api/messages/:id/raw") { [self] _, p in raw(p["id"] ?? "") }
        indexed(.get, "/api/messages/:id/parts/:n") { [self] request, p in
            respond {
                try part(p["id"] ?? "", p["n"] ?? "", view: Self.flag(request, "view"), images: Self.flag(request, "images"),
                         frame: Self.flag(request, "frame"))
            }
        }
        indexed(.get, "/api/otp") { [self] request, _ in otp(request) }
        indexed(.get, "/api/links") { [self] request, _ in link(request) }
        router.add(.get, "/api/events") { [self] _, _ in events() }
    }

    // MARK: Errors

    typealias Problem = HTTPProblem

    static func notFound(_ id: String) -> Problem {
        Problem(response: .problem(.notFound, error: "message_not_found",
                                   message: "no message with id '\(id)'; list ids with GET /api/messages"))
    }

    static func badParameter(_ name: String, _ problem: String) -> Problem {
        Problem(response: .problem(.badRequest, error: "invalid_parameter", message: "\(name) \(problem)"))
    }

    func respond(_ body: () throws -> HTTPResponse) -> HTTPReply {
        do {
            return Self.reply(try body())
        } catch let problem as Problem {
            return .response(problem.response)
        } catch let error as MessageStoreError {
            return .response(.problem(.badRequest, error: "invalid_query", message: "\(error)"))
        } catch {
            return .response(storeFailure(error, while: "answering the request"))
        }
    }

    /// A store error as the client gets it (503 naming the disk when it is full or the index cannot
    /// be written, else 500), reported with its cause for whoever runs the server.
    func storeFailure(_ error: any Error, while doing: String) -> HTTPResponse {
        if let failure = inbox.storageFailure(error) {
            inbox.report("understudy: error: the inbox store failed while \(doing): \(failure)")
            return failure.unavailableResponse
        }
        inbox.report("understudy: error: the inbox store failed while \(doing): \(error)")
        return .problem(.internalServerError, error: "store_failed",
                        message: "the inbox store failed while \(doing): \(error); the server's log has the details")
    }

    /// Bodies above this are sent as a pulled stream (see `reply`).
    static let streamThreshold = 256 * 1024
    /// Bytes per chunk of a streamed body.
    static let streamChunkBytes = 64 * 1024

    /// A large body (a big message's detail or part) goes out a chunk at a time as the client takes
    /// it, so a slow reader holds the body once, not again in the connection's queue.
    static func reply(_ response: HTTPResponse) -> HTTPReply {
        guard response.body.count > streamThreshold else { return .response(response) }
        let reader = RawMessageReader(bytes: response.body)
        var head = response
        head.body = []
        return .stream(head) { writer in
            writer.stream { try reader.read(upTo: streamChunkBytes) }
        }
    }

    /// The message as received, streamed from the store's log a chunk at a time; `message/rfc822`
    /// under a sandbox CSP (and `nosniff`), never something a browser renders as a page.
    func raw(_ id: String) -> HTTPReply {
        let reader: RawMessageReader
        do {
            guard let found = try inbox.store.rawReader(id: id) else { throw Self.notFound(id) }
            reader = found
        } catch {
            return respond { throw error }
        }
        let head = HTTPResponse(status: .ok, headers: ["Content-Type": "message/rfc822",
                                                       "Content-Security-Policy": Self.sandboxPolicy(images: false),
                                                       "X-Content-Type-Options": "nosniff"])
        return .stream(head) { writer in
            writer.onClose { reader.close() }
            writer.stream { try reader.read(upTo: Self.streamChunkBytes) }
        }
    }

    // MARK: Parameters

    static func integer(_ request: HTTPRequest, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.queryValue(name), !text.isEmpty else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw badParameter(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return n
    }

    /// `after`: a message id, or an RFC 3339 time.
    static func cursor(_ request: HTTPRequest) throws -> MessageCursor? {
        guard let text = request.queryValue("after"), !text.isEmpty else { return nil }
        if text.utf8.count >= 20, text.utf8.dropFirst(4).first == UInt8(ascii: "-") {
            guard let ms = Timestamp.parse(text) else {
                throw badParameter("after", "must be a message id or an RFC 3339 time like 2026-12-02T10:00:00Z, got '\(text)'")
            }
            return .time(ms)
        }
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }) else {
            throw badParameter("after", "must be a message id or an RFC 3339 time like 2026-12-02T10:00:00Z, got '\(text)'")
        }
        return .id(text)
    }

    static func optionalText(_ request: HTTPRequest, _ name: String) throws -> String? {
        guard let v = request.queryValue(name), !v.isEmpty else { return nil }
        guard v.utf8.count <= MessageFilter.maximumTextLength else {
            throw badParameter(name, "is longer than \(MessageFilter.maximumTextLength) bytes")
        }
        return v
    }

    // MARK: Reading

    func list(_ request: HTTPRequest) throws -> HTTPResponse {
        let filter = MessageFilter(
            to: try Self.optionalText(request, "to"), from: try Self.optionalText(request, "from"),
            subject: try Self.optionalText(request, "subject"), query: try Self.optionalText(request, "q"),
            after: try Self.cursor(request),
            limit: try Self.integer(request, "limit", default: 50, range: 1...MessageFilter.maximumLimit),
            offset: try Self.integer(request, "offset", default: 0, range: 0...MessageFilter.maximumOffset))
        let page = try inbox.store.list(filter)
        return .json(["total": JSONValue(page.total), "messages": .array(page.items.map(InboxJSON.summary))])
    }

    func detail(_ id: String) throws -> HTTPResponse {
        guard let stored = try inbox.store.message(id: id), let raw = try inbox.store.raw(id: id) else { throw Self.notFound(id) }
        var detail = InboxJSON.detail(stored, mime: MIMEMessage(parsing: raw))
        detail["rejectedCodes"] = Self.rejectedCodes(stored)
        return .json(detail)
    }

    /// What looked like a code in the message and why it was not taken ("looks like a year").
    static func rejectedCodes(_ m: StoredMessage) -> JSONValue {
        let rejected = Extractor.rejectedCandidates(subject: m.summary.subject, text: m.text, html: m.html)
        return .array(rejected.map { ["raw": .string($0.raw), "reason": .string($0.reason), "source": .string($0.source.rawValue)] })
    }

    /// A part's decoded bytes, served so that nothing in a received mail runs on the API's origin:
    /// always under a sandbox CSP with `nosniff`; a type that is not known to be inert (HTML, SVG,
    /// XML, ...) is an attachment unless `view` asks to see it (still sandboxed, no script, no
    /// requests). `images` lets a viewed part load its images.
    func part(_ id: String, _ number: String, view: Bool = false, images: Bool = false, frame: Bool = false) throws -> HTTPResponse {
        guard let raw = try inbox.store.raw(id: id) else { throw Self.notFound(id) }
        let mime = MIMEMessage(parsing: raw)
        guard let part = mime.part(number) else {
            throw Problem(response: .problem(.notFound, error: "part_not_found",
                                             message: "message \(id) has no part '\(number)'; parts: \(mime.parts.map(\.partNumber).joined(separator: ", "))"))
        }
        var headers: HTTPHeaders = ["Content-Type": part.contentType + (part.charset.map { "; charset=\($0)" } ?? "")]
        headers.add(name: "Content-Security-Policy", value: Self.sandboxPolicy(images: images, frame: frame))
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        let attachment = !view && (part.isAttachment || !Self.inertTypes.contains(part.contentType))
        var disposition = attachment ? "attachment" : "inline"
        if let name = part.filename {
            let safe = String(name.unicodeScalars.filter { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init))
            disposition += "; filename=\"\(safe)\""
        }
        if attachment || part.filename != nil {
            headers.add(name: "Content-Disposition", value: disposition)
        }
        return HTTPResponse(status: .ok, headers: headers, body: part.bytes)
    }

    /// Types a browser shows without running anything: served inline. Everything else (HTML, SVG,
    /// XML, PDF, unknown types) is an attachment unless viewed on purpose.
    public static let inertTypes: Set<String> = ["text/plain", "text/csv", "image/png", "image/jpeg", "image/gif",
                                          "image/webp", "image/avif", "image/bmp"]

    /// No script, no plugins, no requests, no framing: a received mail's content stays inert on
    /// the API's origin. Styles inline in the mail still apply; images only when asked. `frame`
    /// (`?frame=1`, the web UI's message view) lets this origin's pages frame it: the sandbox
    /// still gives it an opaque origin, so the frame reaches nothing of the UI or the API.
    public static func sandboxPolicy(images: Bool, frame: Bool = false) -> String {
        "sandbox; default-src 'none'; style-src 'unsafe-inline'; " + (images ? "img-src * data:; " : "")
            + (frame ? "frame-ancestors 'self'" : "frame-ancestors 'none'")
    }

    /// `?view=1` and the like.
    static func flag(_ request: HTTPRequest, _ name: String) -> Bool {
        guard let value = request.queryValue(name)?.lowercased() else { return false }
        return value == "1" || value == "true" || value == "yes"
    }

    // MARK: Waiting

    /// The answer for `/api/otp` from a stored message, if it has a code.
    static func codeAnswer(id: String, codes: [String], subject: String?, receivedAt: Int64) -> JSONValue? {
        guard let code = codes.first else { return nil }
        return ["code": .string(code), "messageId": .string(id), "subject": JSONValue(subject),
                "receivedAt": .string(Timestamp.format(milliseconds: receivedAt))]
    }

    static func linkAnswer(id: String, links: [JSONValue], purpose: String?, subject: String?, receivedAt: Int64) -> JSONValue? {
        guard let link = links.first(where: { purpose == nil || $0["purpose"]?.stringValue == purpose }) else { return nil }
        return ["url": link["url"] ?? .null, "text": link["text"] ?? .null, "purpose": link["purpose"] ?? .null,
                "messageId": .string(id), "subject": JSONValue(subject),
                "receivedAt": .string(Timestamp.format(milliseconds: receivedAt))]
    }

    struct WaitParameters {
        var to: String
        var wait: Int
        var after: MessageCursor?
    }

    static func waitParameters(_ request: HTTPRequest) throws -> WaitParameters {
        guard let to = try optionalText(request, "to") else {
            throw badParameter("to", "is required: the recipient address, e.g. /api/otp?to=alice@example.com&wait=30")
        }
        return WaitParameters(to: to, wait: try integer(request, "wait", default: 0, range: 0...maximumWait), after: try cursor(request))
    }

    func otp(_ request: HTTPRequest) -> HTTPReply {
        let params: WaitParameters
        do { params = try Self.waitParameters(request) } catch let p as Problem { return .response(p.response) } catch {
            return .response(.problem(.badRequest, error: "invalid_parameter", message: "\(error)"))
        }
        let store = inbox.store
        return waitReply(params, what: "one-time code", existing: {
            guard let m = try store.latest(to: params.to, after: params.after, requireCode: true) else { return nil }
            return Self.codeAnswer(id: m.id, codes: m.summary.codes, subject: m.summary.subject, receivedAt: m.summary.receivedAt)
        }, match: { d in
            Self.codeAnswer(id: d.id, codes: d.message.codes, subject: d.message.subject, receivedAt: d.message.receivedAt)
        })
    }

    func link(_ request: HTTPRequest) -> HTTPReply {
        let params: WaitParameters
        let purpose: String?
        do {
            params = try Self.waitParameters(request)
            purpose = try Self.optionalText(request, "purpose")
            let known = ["verify-email", "magic-link", "reset-password", "unsubscribe", "other"]
            if let purpose, !known.contains(purpose) {
                throw Self.badParameter("purpose", "must be one of \(known.joined(separator: ", ")), got '\(purpose)'")
            }
        } catch let p as Problem { return .response(p.response) } catch {
            return .response(.problem(.badRequest, error: "invalid_parameter", message: "\(error)"))
        }
        let store = inbox.store
        return waitReply(params, what: purpose.map { "\($0) link" } ?? "link", existing: {
            // Newest first among recent messages to the address; the first with a fitting link wins.
            let page = try store.list(MessageFilter(to: params.to, after: params.after, limit: 50))
            for summary in page.items {
                guard let m = try store.message(id: summary.id) else { continue }   // pruned meanwhile
                let links = (try? JSONValue.parse(m.linksJSON))?.arrayValue ?? []
                if let answer = Self.linkAnswer(id: m.id, links: links, purpose: purpose, subject: summary.subject, receivedAt: summary.receivedAt) {
                    return answer
                }
            }
            return nil
        }, match: { d in
            Self.linkAnswer(id: d.id, links: d.links, purpose: purpose, subject: d.message.subject, receivedAt: d.message.receivedAt)
        })
    }

    /// Answers with what `existing` finds now, else waits for a matching delivery. A store error
    /// in `existing` is answered as one (503 for a full disk, else 500) and reported, never taken
    /// for "nothing arrived".
    func waitReply(_ params: WaitParameters, what: String, existing: @escaping @Sendable () throws -> JSONValue?,
                   match: @escaping @Sendable (DeliveredMessage) -> JSONValue?) -> HTTPReply {
        if params.wait == 0 {
            do { return .response(try existing().map { .json($0) } ?? notFound(params, what: what)) } catch {
                return .response(storeFailure(error, while: "looking for a \(what) for \(params.to)"))
            }
        }
        return .deferred { [self, inbox] promise in
            let failure = Mutex<(any Error)?>(nil)
            let lookup: @Sendable () -> JSONValue? = {
                do { return try existing() } catch {
                    failure.withLock { $0 = error }
                    return nil
                }
            }
            let cancel = inbox.wait(for: params.to, timeout: .seconds(params.wait), existing: lookup, match: match) { answer in
                if let answer { return promise.succeed(.json(answer)) }
                // The diagnosis reads the store: off whatever thread timed the wait out.
                DispatchQueue.global().async { promise.succeed(notFound(params, what: what)) }
            }
            if let error = failure.withLock({ $0 }) {
                cancel()   // the waiter is dropped: its timeout finds nothing to answer
                return promise.succeed(storeFailure(error, while: "looking for a \(what) for \(params.to)"))
            }
            promise.onCancel(cancel)
        }
    }

    /// How many messages the diagnosis of a fruitless wait names.
    static let diagnosedMessages = 10

    /// The 404 of a wait that found nothing. When mail did arrive for the address, it says so,
    /// names the messages, and says that none held what was asked for (`no_code_found`,
    /// `no_link_found`): the address was right, the mail is the puzzle. Else `nothing_arrived`.
    func notFound(_ params: WaitParameters, what: String) -> HTTPResponse {
        let within = params.wait > 0 ? " within \(params.wait) s" : ""
        let page = try? inbox.store.list(MessageFilter(to: params.to, after: params.after, limit: Self.diagnosedMessages))
        guard let page, page.total > 0 else {
            return .problem(.notFound, error: "nothing_arrived",
                            message: "no \(what) for \(params.to) arrived\(within); check the address, "
                                + "or wait longer with wait=SECONDS (at most \(Self.maximumWait))")
        }
        let isCode = what == "one-time code"
        var messages: [JSONValue] = []
        var named: [String] = []
        for summary in page.items {
            var entry: JSONValue = ["id": .string(summary.id), "subject": JSONValue(summary.subject),
                                    "receivedAt": .string(Timestamp.format(milliseconds: summary.receivedAt))]
            if let m = try? inbox.store.message(id: summary.id) {
                if isCode {
                    entry["rejectedCodes"] = Self.rejectedCodes(m)
                } else {
                    let links = (try? JSONValue.parse(m.linksJSON))?.arrayValue ?? []
                    entry["linkPurposes"] = .array(links.compactMap { $0["purpose"] })
                }
            }
            messages.append(entry)
            named.append("\(summary.id) \"\(summary.subject ?? "")\"")
        }
        let count = page.total == 1 ? "1 message" : "\(page.total) messages"
        let shown = page.total > page.items.count ? " (newest \(page.items.count) shown)" : ""
        let message = "\(count) arrived for \(params.to)\(params.after == nil ? "" : " after the given 'after'")\(within), "
            + "but none held a \(what): \(named.joined(separator: ", "))\(shown); "
            + (isCode ? "GET /api/messages/{id} shows what looked like a code and why it was not taken"
                      : "GET /api/messages/{id} lists each message's links and their purposes")
        let body: JSONValue = ["error": .string(isCode ? "no_code_found" : "no_link_found"), "message": .string(message),
                               "arrived": JSONValue(page.total), "messages": .array(messages)]
        return .json(body, status: .notFound)
    }

    // MARK: Events

    func events() -> HTTPReply {
        let head = HTTPResponse(status: .ok, headers: [
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        ])
        return .stream(head) { [inbox] writer in
            _ = writer.write(Array(": understudy events\nretry: 2000\n\n".utf8))
            let unsubscribe = inbox.subscribe { event in
                _ = writer.write(InboxJSON.serverSentEvent(event))
            }
            let heartbeat = Heartbeat(writer: writer)
            heartbeat.start()
            writer.onClose {
                unsubscribe()
                heartbeat.stop()
            }
        }
    }
}

/// A comment line every 15 s keeps proxies and clients from timing out an idle event stream.
/// `@unchecked Sendable`: a dispatch source is thread-safe; Dispatch just does not say so in Swift.
final class Heartbeat: @unchecked Sendable {
    let writer: any HTTPBodyWriter
    let timer: DispatchSourceTimer
    let interval: DispatchTimeInterval

    init(writer: any HTTPBodyWriter, interval: DispatchTimeInterval = .seconds(15)) {
        self.writer = writer
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.setEventHandler { [writer] in _ = writer.write(Array(": ping\n\n".utf8)) }
        // Resumed at once but not scheduled until start(): Dispatch traps when a source that was
        // never resumed is released, so a heartbeat dropped before starting must not crash.
        timer.resume()
    }

    func start() {
        timer.schedule(deadline: .now() + interval, repeating: interval)
    }

    func stop() { timer.cancel() }
}
