import Dispatch
import Synchronization
import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJSON
import UnderstudyStore
import UnderstudyTestSupport
@testable import UnderstudyMailpit

struct RouteHarness {
    let inbox: Inbox
    let router: FrozenRouter

    init() throws {
        inbox = Inbox(store: try MessageStore(location: .temporary), clock: { 1_796_256_000_000 })
        var router = Router()
        MailpitRoutes(inbox: inbox, version: "understudy test", clock: inbox.clock).register(on: &router)
        self.router = router.freeze()
    }

    func close() { inbox.close() }

    typealias Reply = RouterReply

    @discardableResult
    func request(_ method: HTTPMethod, _ target: String, json: JSONValue? = nil, headers extra: [(String, String)] = [],
                 body: [UInt8]? = nil) -> Reply {
        router.testRequest(method, target, json: json, headers: extra, body: body)
    }

    func deliver(_ raw: String, from: String = "sender@example.com", to: [String]) throws -> String {
        try inbox.acceptAndWait(raw: Array(raw.replacing("\n", with: "\r\n").utf8), envelopeFrom: from, envelopeTo: to)
    }
}
