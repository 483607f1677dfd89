@preconcurrency import Dispatch
import UnderstudyHTTP
import UnderstudyJSON
import UnderstudyProviders

/// Answers the provider endpoints a fault is set for the way the fault says (500, 503, a hang, a
/// broken key set); every other request goes to `next` untouched. Sits under host routing, so the
/// real hosts' paths meet the same faults.
struct FaultInjector: HTTPResponder {
    let board: FaultBoard
    let keys: KeyStore
    let clock: UnixClock
    let next: any HTTPResponder

    func respond(to request: HTTPRequest) -> HTTPReply {
        let path = request.target.prefix { $0 != "?" }
        guard let (target, provider) = FaultBoard.classify(path: String(path)),
              let fault = board.take(target, provider: provider, now: clock()) else {
            return next.respond(to: request)
        }
        switch fault.kind {
        case .serverError:
            return .response(Self.marked(ProviderRoutes.oauthProblem(.internalServerError, error: "server_error",
                                                                     description: "Understudy fault: 500"), fault))
        case .unavailable(let retryAfter):
            var r = ProviderRoutes.oauthProblem(.serviceUnavailable, error: "temporarily_unavailable", description: "Understudy fault: 503")
            r.headers.add(name: "Retry-After", value: String(retryAfter))
            return .response(Self.marked(r, fault))
        case .hang(let seconds):
            // A timer, not a sleep: the loop keeps serving, and the answer comes when it fires.
            return .deferred { [next] promise in
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(seconds))) {
                    promise.complete(with: next.respond(to: request))
                }
            }
        case .emptyKeySet:
            let body: JSONValue = path.hasSuffix("/v1/certs") ? .object([:]) : ["keys": []]
            return .response(Self.marked(Self.replacingBody(of: nil, with: body.serializedBytes()), fault))
        case .malformedJSON:
            return Self.transform(next.respond(to: request)) { r in
                Self.marked(Self.replacingBody(of: r, with: Array(r.body.prefix(max(1, r.body.count / 2)))), fault)
            }
        case .dropKey:
            let active = keys.keySet(provider, now: clock()).active.kid
            return Self.transform(next.respond(to: request)) { r in
                guard case .object(var document)? = try? JSONValue.parse(r.body) else { return r }
                if let list = document["keys"]?.arrayValue {
                    document["keys"] = .array(list.filter { $0["kid"]?.stringValue != active })
                } else {
                    document[active] = nil
                }
                return Self.marked(Self.replacingBody(of: r, with: JSONValue.object(document).serializedBytes()), fault)
            }
        }
    }

    static func marked(_ response: HTTPResponse, _ fault: Fault) -> HTTPResponse {
        var r = response
        r.headers.add(name: "X-Understudy-Fault", value: fault.kind.name)
        return r
    }

    static func replacingBody(of response: HTTPResponse?, with body: [UInt8]) -> HTTPResponse {
        var r = response ?? HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: [])
        r.body = body
        return r
    }

    /// Applies `change` to the response a reply ends in (after blocking work, on the worker).
    static func transform(_ reply: HTTPReply, _ change: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPReply {
        switch reply {
        case .response(let r): return .response(change(r))
        case .blocking(let work): return .blocking { transform(work(), change) }
        case .deferred, .stream: return reply
        }
    }
}
