import Dispatch
import Synchronization
import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyStore
import UnderstudyTestSupport
@testable import UnderstudyMailAPIs

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

    typealias Reply = RouterReply

    @discardableResult
    func request(_ method: HTTPMethod, _ target: String, json: JSONValue? = nil, headers extra: [(String, String)] = [],
                 body: [UInt8]? = nil) -> Reply {
        router.testRequest(method, target, json: json, headers: extra, body: body)
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
