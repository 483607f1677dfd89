import UnderstudyHTTP

/// The rule every mail API (Understudy's own, Mailpit's) answers by: never an answer that misses a
/// message already accepted.
extension Inbox {
    /// How long a request waits for the index before answering 503 `index_busy`.
    public static let indexWait: Duration = .seconds(10)

    /// `reply` now when every message answered for is indexed (the usual case), else once it is;
    /// 503 instead, and at once, when the index cannot be written (a full disk), or after
    /// `indexWait`.
    public func consistent(_ reply: @escaping @Sendable () -> HTTPReply) -> HTTPReply {
        guard hasPendingCommits else { return reply() }
        if let failure = indexFailure { return .response(failure.unavailableResponse) }
        return .deferred { [self] promise in
            let answer: @Sendable (InboxError?) -> Void = { error in
                if let error { return promise.succeed(error.unavailableResponse) }
                promise.complete(with: reply())
            }
            // Indexed in the meantime: answer here.
            if !afterPendingCommits(timeout: Self.indexWait, answer) { answer(nil) }
        }
    }
}

extension InboxError {
    /// 503 with this error's code and message, and `Retry-After: 1`.
    public var unavailableResponse: HTTPResponse {
        var response = HTTPResponse.problem(.serviceUnavailable, error: errorCode, message: description)
        response.headers.add(name: "Retry-After", value: "1")
        return response
    }
}
