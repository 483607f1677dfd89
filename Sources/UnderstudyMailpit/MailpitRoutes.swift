#if canImport(Glibc)
import Glibc
#endif
import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyMIME
import UnderstudyStore

/// Mailpit's API v1 under `/api/v1` (and its `/livez`, `/readyz`), over the same inbox, so a test
/// suite written against Mailpit runs against Understudy with only the base URL changed.
/// Shapes and status codes follow Mailpit's swagger; errors carry Understudy's JSON problem body
/// (Mailpit answers a bare string there). Every route that reads the store first waits for the
/// index, like `/api`, and runs on the worker pool.
public struct MailpitRoutes: Sendable {
    public let inbox: Inbox
    /// Reported by `/api/v1/info`.
    let version: String
    let startedAt: Int64
    let clock: @Sendable () -> Int64

    public init(inbox: Inbox, version: String, clock: @escaping @Sendable () -> Int64) {
        self.inbox = inbox
        self.version = version
        self.clock = clock
        self.startedAt = clock()
    }

    public func register(on router: inout Router) {
        func indexed(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping @Sendable (HTTPRequest, RouteParameters) throws -> HTTPResponse) {
            router.add(method, pattern) { [self] request, parameters in
                inbox.consistent { .blocking { respond { try handler(request, parameters) } } }
            }
        }
        indexed(.get, "/api/v1/messages") { [self] r, _ in try list(r, search: nil) }
        indexed(.put, "/api/v1/messages") { [self] r, _ in try setRead(r) }
        indexed(.delete, "/api/v1/messages") { [self] r, _ in try deleteMessages(r) }
        indexed(.get, "/api/v1/search") { [self] r, _ in try list(r, search: try Self.query(r)) }
        indexed(.delete, "/api/v1/search") { [self] r, _ in try deleteSearch(try Self.query(r)) }
        indexed(.get, "/api/v1/message/:id") { [self] r, p in try message(r, p["id"] ?? "") }
        indexed(.get, "/api/v1/message/:id/headers") { [self] r, p in
            let (_, mime) = try load(r, p["id"] ?? "")
            return .json(MailpitJSON.headers(mime))
        }
        indexed(.get, "/api/v1/message/:id/raw") { [self] r, p in
            let id = try resolve(r, p["id"] ?? "")
            guard let raw = try inbox.store.raw(id: id) else { throw Self.notFound(id) }
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8",
                                                       "Content-Security-Policy": InboxRoutes.sandboxPolicy(images: false),
                                                       "X-Content-Type-Options": "nosniff"], body: raw)
        }
        indexed(.get, "/api/v1/message/:id/part/:part") { [self] r, p in try part(r, p["id"] ?? "", p["part"] ?? "") }
        indexed(.get, "/api/v1/message/:id/part/:part/thumb") { _, _ in
            throw Problem(response: .problem(.notFound, error: "thumbnail_unavailable",
                                             message: "Understudy makes no thumbnails; fetch the part itself at /api/v1/message/{ID}/part/{PartID}"))
        }
        indexed(.get, "/api/v1/tags") { [self] _, _ in .json(JSONValue(try inbox.store.tagCounts().map(\.tag))) }
        indexed(.put, "/api/v1/tags") { [self] r, _ in try setTags(r) }
        indexed(.put, "/api/v1/tags/:tag") { [self] r, p in
            let body = try Self.body(r)
            guard let name = body?["Name"]?.stringValue, !name.isEmpty else {
                throw Self.badRequest("invalid_body", "give the new name as {\"Name\":\"New name\"}")
            }
            try inbox.renameTag(p["tag"] ?? "", to: name)
            return Self.ok
        }
        indexed(.delete, "/api/v1/tags/:tag") { [self] _, p in
            try inbox.renameTag(p["tag"] ?? "", to: nil)
            return Self.ok
        }
        indexed(.get, "/api/v1/info") { [self] _, _ in try info() }
        indexed(.get, "/view/:file") { [self] r, p in try view(r, p["file"] ?? "") }
        router.add(.post, "/api/v1/send") { [self] request, _ in send(request) }
        let webUI = HTTPResponse.json([
            "Label": "Understudy",
            "MessageRelay": ["Enabled": false, "SMTPServer": "", "ReturnPath": "", "AllowedRecipients": "",
                             "BlockedRecipients": "", "OverrideFrom": "", "PreserveMessageIDs": false],
            "SpamAssassin": false, "ChaosEnabled": false, "DuplicatesIgnored": false, "HideDeleteAllButton": false,
        ])
        router.add(.get, "/api/v1/webui") { _, _ in .response(webUI) }
        let ok = Self.ok
        router.add(.get, "/livez") { _, _ in .response(ok) }
        router.add(.get, "/readyz") { [inbox] _, _ in
            if let failure = inbox.indexFailure { return .response(failure.unavailableResponse) }
            return .response(ok)
        }
    }

    static let ok = HTTPResponse.text("ok")

    // MARK: Consistency and errors

    typealias Problem = HTTPProblem

    static func notFound(_ id: String) -> Problem {
        Problem(response: .problem(.notFound, error: "message_not_found",
                                   message: "no message with ID '\(id)'; list them with GET /api/v1/messages"))
    }

    static func badRequest(_ code: String, _ message: String) -> Problem {
        Problem(response: .problem(.badRequest, error: code, message: message))
    }

    func respond(_ body: () throws -> HTTPResponse) -> HTTPReply {
        do {
            return .response(try body())
        } catch let problem as Problem {
            return .response(problem.response)
        } catch let error as MessageStoreError {
            return .response(.problem(.badRequest, error: "invalid_request", message: "\(error)"))
        } catch let error as MailpitSearch.ParseError {
            return .response(.problem(.badRequest, error: "invalid_query", message: error.description))
        } catch {
            // As the inbox API does: the client hears 503 or 500, the server's log gets the cause.
            if let failure = inbox.storageFailure(error) {
                inbox.report("understudy: error: the inbox store failed while answering a Mailpit API request: \(failure)")
                return .response(failure.unavailableResponse)
            }
            inbox.report("understudy: error: the inbox store failed while answering a Mailpit API request: \(error)")
            return .response(.problem(.internalServerError, error: "store_failed",
                                      message: "the inbox store failed: \(error); the server's log has the details"))
        }
    }

    // MARK: Parameters

    static func integer(_ request: HTTPRequest, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.queryValue(name), !text.isEmpty else { return value }
        guard let n = Int(text), n >= range.lowerBound else {
            throw badRequest("invalid_parameter", "\(name) must be a whole number from \(range.lowerBound), got '\(text)'")
        }
        return min(n, range.upperBound)
    }

    static func query(_ request: HTTPRequest) throws -> String {
        guard let query = request.queryValue("query"), !query.allSatisfy(\.isWhitespace) else {
            throw badRequest("invalid_parameter", "query is required, e.g. /api/v1/search?query=to:alice@example.com")
        }
        return query
    }

    /// A JSON body if there is one (Mailpit does not insist on the Content-Type). A urlencoded
    /// form (what mailpit-api-client sends: `ids=...&Read=True`) reads as the same object.
    static func body(_ request: HTTPRequest) throws -> JSONValue? {
        guard request.body.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return nil }
        if request.mediaType == "application/x-www-form-urlencoded" {
            var ids: [JSONValue] = []
            var tags: [JSONValue] = []
            var object = JSONObject()
            for (name, value) in URLEncoding.formDecoded(request.body) {
                switch name.lowercased() {
                case "ids": ids.append(.string(value))
                case "tags": tags.append(.string(value))
                case "read": object["Read"] = .bool(value.lowercased() == "true" || value == "1")
                case "search", "name": object[name.prefix(1).uppercased() + name.dropFirst().lowercased()] = .string(value)
                default: break
                }
            }
            if !ids.isEmpty { object["IDs"] = .array(ids) }
            if !tags.isEmpty { object["Tags"] = .array(tags) }
            return .object(object)
        }
        do { return try JSONValue.parse(request.body) } catch {
            throw badRequest("invalid_json", "the body is not JSON: \(error)")
        }
    }

    static func ids(_ body: JSONValue?) throws -> [String]? {
        guard let value = body?["IDs"], !value.isNull else { return nil }
        guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
            throw badRequest("invalid_body", "IDs must be an array of message IDs")
        }
        return list.compactMap(\.stringValue)
    }

    // MARK: Messages

    func filter(search: String?, start: Int, limit: Int) throws -> MessageFilter {
        var filter = MessageFilter(limit: limit, offset: start)
        if let search { filter.conditions = try MailpitSearch(search).conditions }
        return filter
    }

    func list(_ request: HTTPRequest, search: String?) throws -> HTTPResponse {
        let start = try Self.integer(request, "start", default: 0, range: 0...MessageFilter.maximumOffset)
        // Mailpit takes limit=0 as "the default"; above the maximum is the maximum.
        let asked = try Self.integer(request, "limit", default: 50, range: 0...MessageFilter.maximumLimit)
        let limit = asked == 0 ? 50 : asked
        let filter = try filter(search: search, start: start, limit: limit)
        let store = inbox.store
        let page = try store.list(filter)
        var unreadFilter = filter
        unreadFilter.limit = 1
        unreadFilter.offset = 0
        unreadFilter.conditions.append(.isRead(false))
        let total = search == nil ? page.total : try store.count()
        return .json([
            "total": JSONValue(total),
            "unread": JSONValue(try store.unreadCount()),
            "count": JSONValue(page.items.count),
            "messages_count": JSONValue(page.total),
            "messages_unread": JSONValue(try store.list(unreadFilter).total),
            "start": JSONValue(start),
            "tags": JSONValue(try store.tagCounts().map(\.tag)),
            "messages": .array(page.items.map(MailpitJSON.summary)),
        ])
    }

    /// A message id, `latest` resolved (narrowed by `?query=` when given).
    func resolve(_ request: HTTPRequest, _ id: String) throws -> String {
        guard id == "latest" else { return id }
        let search = request.queryValue("query").flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        guard let newest = try inbox.store.list(try filter(search: search, start: 0, limit: 1)).items.first else {
            throw Problem(response: .problem(.notFound, error: "message_not_found",
                                             message: search == nil ? "there are no messages" : "no message matches '\(search!)'"))
        }
        return newest.id
    }

    func load(_ request: HTTPRequest, _ id: String) throws -> (StoredMessage, MIMEMessage) {
        let id = try resolve(request, id)
        do {
            guard let stored = try inbox.store.message(id: id), let raw = try inbox.store.raw(id: id) else { throw Self.notFound(id) }
            return (stored, MIMEMessage(parsing: raw))
        } catch let error as MessageStoreError where error.isInvalidID {
            throw Self.notFound(id)
        }
    }

    /// The message, marked read (as Mailpit does when it is opened).
    func message(_ request: HTTPRequest, _ id: String) throws -> HTTPResponse {
        var (stored, mime) = try load(request, id)
        // Best effort: a store that cannot be written (a full disk) still shows the message.
        if !stored.summary.isRead, (try? inbox.setRead(true, ids: [stored.id])) != nil {
            stored.summary.isRead = true
        }
        return .json(MailpitJSON.detail(stored, mime: mime))
    }

    func part(_ request: HTTPRequest, _ id: String, _ number: String) throws -> HTTPResponse {
        let (stored, mime) = try load(request, id)
        guard let part = mime.part(number) else {
            throw Problem(response: .problem(.notFound, error: "part_not_found",
                                             message: "message \(stored.id) has no part '\(number)'; parts: \(mime.parts.map(\.partNumber).joined(separator: ", "))"))
        }
        return HTTPResponse(status: .ok, headers: Self.partHeaders(part), body: part.bytes)
    }

    /// The main API's rules for parts (`InboxRoutes.part`): a sandbox CSP and `nosniff` on
    /// every part, and any type not known to be inert (HTML, SVG, XML, PDF...) as a download.
    static func partHeaders(_ part: MIMEPart) -> HTTPHeaders {
        var headers: HTTPHeaders = ["Content-Type": part.contentType + (part.charset.map { "; charset=\($0)" } ?? ""),
                                    "Content-Security-Policy": InboxRoutes.sandboxPolicy(images: false),
                                    "X-Content-Type-Options": "nosniff"]
        let attachment = part.isAttachment || !InboxRoutes.inertTypes.contains(part.contentType)
        let name = part.filename.map { String($0.unicodeScalars.filter { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init)) }
        if attachment || name != nil {
            headers.add(name: "Content-Disposition", value: (attachment ? "attachment" : "inline") + (name.map { "; filename=\"\($0)\"" } ?? ""))
        }
        return headers
    }

    /// `/view/{ID}.txt` and `/view/{ID}.html`: the message's text or HTML alone, for UI tests. The
    /// HTML is shown (it is what the route is for) but under the same sandbox as every part: no
    /// script, no requests.
    func view(_ request: HTTPRequest, _ file: String) throws -> HTTPResponse {
        let html = file.hasSuffix(".html")
        guard html || file.hasSuffix(".txt") else {
            throw Problem(response: .problem(.notFound, error: "not_found", message: "use /view/{ID}.html or /view/{ID}.txt"))
        }
        let (stored, _) = try load(request, String(file.dropLast(html ? 5 : 4)))
        guard let body = html ? stored.html : stored.text else {
            throw Problem(response: .problem(.notFound, error: "part_not_found",
                                             message: "message \(stored.id) has no \(html ? "HTML" : "text") part"))
        }
        return HTTPResponse(status: .ok, headers: ["Content-Type": html ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
                                                   "Content-Security-Policy": InboxRoutes.sandboxPolicy(images: false),
                                                   "X-Content-Type-Options": "nosniff"], body: Array(body.utf8))
    }

    func setRead(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try Self.body(request)
        let read = body?["Read"]?.boolValue ?? false
        if let search = body?["Search"]?.stringValue, !search.allSatisfy(\.isWhitespace) {
            let conditions = try MailpitSearch(search).conditions
            try forEachMatch(conditions) { ids in try inbox.setRead(read, ids: ids) }
        } else {
            let ids = try Self.ids(body)
            try inbox.setRead(read, ids: ids?.isEmpty == true ? nil : ids)
        }
        return Self.ok
    }

    func deleteMessages(_ request: HTTPRequest) throws -> HTTPResponse {
        let ids = try Self.ids(try Self.body(request))
        if let ids, !ids.isEmpty {
            _ = try inbox.delete(ids: ids)
        } else {
            _ = try inbox.deleteAll()
        }
        return Self.ok
    }

    func deleteSearch(_ query: String) throws -> HTTPResponse {
        let conditions = try MailpitSearch(query).conditions
        var batches = 0
        while batches < 100_000 {
            batches += 1
            var filter = MessageFilter(limit: MessageFilter.maximumLimit)
            filter.conditions = conditions
            let ids = try inbox.store.list(filter).items.map(\.id)
            if ids.isEmpty { break }
            _ = try inbox.delete(ids: ids)
        }
        return Self.ok
    }

    /// Runs `body` over the ids of every match, in runs of at most 1000: the ids are gathered
    /// first, so an update that changes which messages match (marking `is:unread` read) still
    /// reaches each one once.
    func forEachMatch(_ conditions: [MessageCondition], _ body: ([String]) throws -> Void) throws {
        var ids: [String] = []
        var offset = 0
        while offset <= MessageFilter.maximumOffset {
            var filter = MessageFilter(limit: MessageFilter.maximumLimit, offset: offset)
            filter.conditions = conditions
            let page = try inbox.store.list(filter).items.map(\.id)
            if page.isEmpty { break }
            ids += page
            offset += page.count
        }
        var start = 0
        while start < ids.count {
            try body(Array(ids[start..<min(start + MessageFilter.maximumLimit, ids.count)]))
            start += MessageFilter.maximumLimit
        }
    }

    func setTags(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try Self.body(request)
        guard let tags = body?["Tags"]?.arrayValue, tags.allSatisfy({ $0.stringValue != nil }) else {
            throw Self.badRequest("invalid_body", "give {\"Tags\":[\"Tag 1\"],\"IDs\":[\"...\"]}; an empty Tags removes them")
        }
        let names = tags.compactMap(\.stringValue)
        if let search = body?["Search"]?.stringValue, !search.allSatisfy(\.isWhitespace) {
            try forEachMatch(try MailpitSearch(search).conditions) { ids in try inbox.setTags(names, ids: ids) }
        } else {
            guard let ids = try Self.ids(body), !ids.isEmpty else {
                throw Self.badRequest("invalid_body", "IDs is required: the messages to tag")
            }
            try inbox.setTags(names, ids: ids)
        }
        return Self.ok
    }

    func info() throws -> HTTPResponse {
        let store = inbox.store
        var size: Int64 = 0
        var status = stat()
        if stat(store.path, &status) == 0 { size = Int64(status.st_size) }
        var tags = JSONObject()
        for (tag, count) in try store.tagCounts() { tags[tag] = JSONValue(count) }
        return .json([
            "Version": .string(version),
            "LatestVersion": .string(version),
            "Database": .string(store.path),
            "DatabaseSize": JSONValue(size),
            "Messages": JSONValue(try store.count()),
            "Unread": JSONValue(try store.unreadCount()),
            "Tags": .object(tags),
            "RuntimeStats": [
                "Uptime": JSONValue(max(0, (clock() - startedAt) / 1000)),
                "Memory": 0, "MessagesDeleted": 0, "SMTPAccepted": 0, "SMTPAcceptedSize": 0,
                "SMTPRejected": 0, "SMTPIgnored": 0,
            ],
        ])
    }

    // MARK: Sending

    static func sendError(_ message: String) -> HTTPResponse {
        .json(["Error": .string(message), "error": "invalid_message", "message": .string(message)], status: .badRequest)
    }

    func send(_ request: HTTPRequest) -> HTTPReply {
        let body: JSONValue
        do {
            guard let parsed = try Self.body(request) else { return .response(Self.sendError("the body is empty: send a JSON object")) }
            body = parsed
        } catch let problem as Problem {
            return .response(problem.response)
        } catch {
            return .response(Self.sendError("\(error)"))
        }
        let now = clock()
        let parsed: MailpitSendRequest
        do {
            parsed = try MailpitSendRequest(body, date: now / 1000, messageID: MailIdentifiers.messageID(now))
        } catch {
            return .response(Self.sendError(error.message))
        }
        var composition = parsed.composition
        composition.headers.removeAll { $0.name.lowercased() == IncomingMessage.sourceHeader.lowercased() }
        composition.headers.append((IncomingMessage.sourceHeader, "mailpit"))
        let raw = composition.render()
        return .deferred { [inbox] promise in
            inbox.accept(raw: raw, envelopeFrom: parsed.envelopeFrom, envelopeTo: parsed.recipients, source: "mailpit") { result in
                switch result {
                case .success(let id): promise.succeed(.json(["ID": .string(id)]))
                case .failure(let error):
                    inbox.report("understudy: refused a message from <\(parsed.envelopeFrom)> sent through /api/v1/send (HTTP 503): \(error)")
                    promise.succeed(error.unavailableResponse)
                }
            }
        }
    }
}
