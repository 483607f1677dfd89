/// What `HTTPRequestParser.next()` produces.
public enum HTTPParserEvent: Sendable {
    /// The head of a request with `Expect: 100-continue` and a body was accepted: send
    /// `HTTPSerializer.continueResponse`, then keep feeding. Produced for every such HTTP/1.1 request,
    /// even when its body is already buffered (a client that sent the body anyway ignores the 100).
    case expectContinue
    case request(HTTPRequest)
    /// Terminal: send `error.response` (with `keepAlive: false`), then close.
    case error(HTTPParseError)
}
