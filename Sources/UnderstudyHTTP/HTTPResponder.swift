/// Anything that answers requests: a `FrozenRouter`, or a test double.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPReply
}
