/// The answer to a `.deferred` reply; implemented by the server.
public protocol HTTPResponsePromise: Sendable {
    /// First call wins; later calls are ignored.
    func succeed(_ response: HTTPResponse)
    /// Runs if the client goes away before `succeed`.
    func onCancel(_ callback: @escaping @Sendable () -> Void)
    /// Answers with whatever a handler returned: a response at once, a deferred reply when it
    /// completes, blocking work once it has run (the server's implementation runs it on its worker
    /// pool, so this may be called on a loop thread), a stream as a stream where the server can.
    func complete(with reply: HTTPReply)
}

extension HTTPResponsePromise {
    /// Runs blocking work on the calling thread: for promises that have no worker pool.
    public func complete(with reply: HTTPReply) {
        switch reply {
        case .response(let response): succeed(response)
        case .deferred(let start): start(self)
        case .blocking(let work): complete(with: work())
        case .stream(let head, let start): start(CollectedBody(head: head, promise: self))
        }
    }
}
