import Dispatch
import Synchronization
import UnderstudyHTTP
import UnderstudyJSON

/// Answers a reply in-process for route tests: blocking work runs inline, deferred replies are
/// waited for (at most 30 s).
public final class ReplyCollector: HTTPResponsePromise, Sendable {
    private let response = Mutex<HTTPResponse?>(nil)
    private let done = DispatchSemaphore(value: 0)

    public init() {}

    public func succeed(_ r: HTTPResponse) {
        let first = response.withLock { current -> Bool in
            guard current == nil else { return false }
            current = r
            return true
        }
        if first { done.signal() }
    }

    public func onCancel(_ callback: @escaping @Sendable () -> Void) {}

    public func wait() -> HTTPResponse? {
        guard done.wait(timeout: .now() + 30) == .success else { return nil }
        return response.withLock { $0 }
    }
}

/// A response as route tests read it.
public struct RouterReply {
    public var response: HTTPResponse
    public var status: Int { Int(response.status.code) }
    public var json: JSONValue? { try? JSONValue.parse(response.body) }
    public var text: String { String(decoding: response.body, as: UTF8.self) }
    public func header(_ name: String) -> String? { response.headers[name] }
}

extension HTTPResponder {
    /// Sends a request straight to the routes (no socket) and waits for the answer.
    public func testRequest(_ method: HTTPMethod, _ target: String, json: JSONValue? = nil,
                            headers extra: [(String, String)] = [], body: [UInt8]? = nil) -> RouterReply {
        var headers: HTTPHeaders = [:]
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let request = HTTPRequest(method: method, target: target, headers: headers,
                                  body: body ?? json.map { Array($0.serialized().utf8) } ?? [])
        let collector = ReplyCollector()
        collector.complete(with: respond(to: request))
        return RouterReply(response: collector.wait() ?? .problem(.internalServerError, error: "test_timeout", message: "no reply in 30 s"))
    }
}
