import Synchronization
import Testing
import UnderstudyHTTP
import UnderstudyJSON
@testable import UnderstudyStore
@testable import UnderstudyInbox

/// A store that fails answers as a failure (5xx with a JSON problem) and is reported with its
/// cause; it is never taken for "nothing arrived".
@Suite struct InboxRoutesStoreErrorTests {
    /// Answers a `.deferred` reply for the tests (no server: blocking work runs here).
    final class Promise: HTTPResponsePromise {
        let outcome = Outcome<HTTPResponse>()
        func succeed(_ response: HTTPResponse) { if outcome.calls == 0 { outcome.set(response) } }
        func onCancel(_ callback: @escaping @Sendable () -> Void) {}
    }

    static func answer(_ reply: HTTPReply) -> HTTPResponse? {
        let promise = Promise()
        promise.complete(with: reply)
        return promise.outcome.wait(seconds: 20)
    }

    @Test(arguments: ["/api/otp?to=alice@example.com", "/api/otp?to=alice@example.com&wait=5",
                      "/api/links?to=alice@example.com", "/api/links?to=alice@example.com&wait=5"])
    func aFailingStoreIsAFiveHundredNotANothingArrived(_ target: String) throws {
        let reports = Mutex<[String]>([])
        let inbox = Inbox(store: try MessageStore(location: .temporary), clock: { 1_796_230_014_000 },
                          report: { line in reports.withLock { $0.append(line) } })
        var router = Router()
        InboxRoutes(inbox: inbox).register(on: &router)
        let routes = router.freeze()
        inbox.store.close()   // every read now fails

        let response = try #require(Self.answer(routes.respond(to: HTTPRequest(method: .get, target: target))))
        #expect(response.status.code == 500, "\(target): \(String(decoding: response.body, as: UTF8.self))")
        let body = try JSONValue.parse(response.body)
        #expect(body["error"] == "store_failed")
        #expect(body["message"]?.stringValue?.contains("alice@example.com") == true)
        #expect(reports.withLock { $0 }.contains { $0.contains("the inbox store failed while looking for") })
    }
}
