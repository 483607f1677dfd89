import Dispatch
import Synchronization
import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyStore
@testable import UnderstudyMailAPIs

/// Drives a frozen router in-process: blocking work runs inline, deferred replies are waited for.
final class ReplyCollector: HTTPResponsePromise, Sendable {
    private let response = Mutex<HTTPResponse?>(nil)
    private let done = DispatchSemaphore(value: 0)
    func succeed(_ r: HTTPResponse) {
        let first = response.withLock { current -> Bool in
            guard current == nil else { return false }
            current = r
            return true
        }
        if first { done.signal() }
    }
    func onCancel(_ callback: @escaping @Sendable () -> Void) {}
    func wait() -> HTTPResponse? {
        guard done.wait(timeout: .now() + 30) == .success else { return nil }
        return response.withLock { $0 }
    }
}

struct RouteHarness {
    let inbox: Inbox
    let router: FrozenRouter

    init(apiKey: String? = nil) throws {
        inbox = Inbox(store: try MessageStore(location: .temporary), clock: { 1_796_256_000_000 })
        var router = Router()
        EmailAPIRoutes(inbox: inbox, apiKey: apiKey, clock: inbox.clock).register(on: &router)
        self.router = router.freeze()
    }

    func close() { inbox.close() }

    struct Reply {
        var response: HTTPResponse
        var status: Int { Int(response.status.code) }
        var json: JSONValue? { try? JSONValue.parse(response.body) }
        var text: String { String(decoding: response.body, as: UTF8.self) }
        func header(_ name: String) -> String? { response.headers[name] }
    }

    @discardableResult
    func request(_ method: HTTPMethod, _ target: String, json: JSONValue? = nil, headers extra: [(String, String)] = [],
                 body: [UInt8]? = nil) -> Reply {
        var headers: HTTPHeaders = [:]
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let request = HTTPRequest(method: method, target: target, headers: headers,
                                  body: body ?? json.map { Array($0.serialized().utf8) } ?? [])
        let collector = ReplyCollector()
        collector.complete(with: router.respond(to: request))
        return Reply(response: collector.wait() ?? .problem(.internalServerError, error: "test_timeout", message: "no reply in 30 s"))
    }

    /// The newest stored message, once everything accepted is indexed.
    func newest() throws -> (summary: StoredMessageSummary, message: StoredMessage, raw: String)? {
        let done = DispatchSemaphore(value: 0)
        if !inbox.afterPendingCommits({ _ in done.signal() }) { done.signal() }
        done.wait()
        guard let s = try inbox.store.list(MessageFilter(limit: 1)).items.first, let m = try inbox.store.message(id: s.id),
              let raw = try inbox.store.raw(id: s.id) else { return nil }
        return (s, m, String(decoding: raw, as: UTF8.self))
    }

    func count() throws -> Int {
        let done = DispatchSemaphore(value: 0)
        if !inbox.afterPendingCommits({ _ in done.signal() }) { done.signal() }
        done.wait()
        return try inbox.store.count()
    }
}
