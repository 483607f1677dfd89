/// A request the parser cannot accept. `response` is the JSON problem to send before closing.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case invalidRequestLine = "invalid_request_line"
        case invalidTarget = "invalid_request_target"
        case unsupportedVersion = "http_version_not_supported"
        case headersTooLarge = "request_header_fields_too_large"
        case invalidHeader = "invalid_header"
        case invalidLineEnding = "invalid_line_ending"
        case missingHost = "missing_host"
        case invalidContentLength = "invalid_content_length"
        case bodyTooLarge = "content_too_large"
        case unsupportedTransferEncoding = "unsupported_transfer_encoding"
        case invalidFraming = "invalid_framing"
        case invalidChunk = "invalid_chunk"
        case unsupportedExpectation = "expectation_failed"
        case unsupportedMethod = "method_not_implemented"
    }

    private var code: Code
    public var status: HTTPStatus
    /// What was wrong and what to do.
    public var message: String

    private init(_ code: Code, _ status: HTTPStatus, _ message: String) {
        self.code = code
        self.status = status
        self.message = message
    }

    /// The stable machine-readable code, also the `error` member of the response body.
    public var errorCode: String { code.rawValue }

    public var response: HTTPResponse {
        HTTPResponse.problem(status, error: code.rawValue, message: message)
    }

    public var description: String { "\(status.code) \(code.rawValue): \(message)" }

    // MARK: Request line

    static func invalidRequestLine(_ detail: String) -> HTTPParseError {
        HTTPParseError(.invalidRequestLine, .badRequest,
                       "\(detail); send a request line of the form `GET /path HTTP/1.1`")
    }

    static func tooManyEmptyLines(limit: Int) -> HTTPParseError {
        invalidRequestLine("more than \(limit) empty lines before the request line")
    }

    static var bareCarriageReturn: HTTPParseError {
        HTTPParseError(.invalidLineEnding, .badRequest,
                       "a CR is not followed by LF (RFC 9112 §2.2); end every line with CRLF")
    }

    static func invalidTarget(_ detail: String) -> HTTPParseError {
        HTTPParseError(.invalidTarget, .badRequest, detail)
    }

    static func unsupportedVersion(_ version: String) -> HTTPParseError {
        HTTPParseError(.unsupportedVersion, .httpVersionNotSupported,
                       "\(version) is not supported; send HTTP/1.1 (or HTTP/1.0)")
    }

    static func unsupportedMethod(_ method: String) -> HTTPParseError {
        HTTPParseError(.unsupportedMethod, .notImplemented,
                       "method \(method) is not supported by this server; it is not a proxy")
    }

    // MARK: Header section

    static func headersTooLarge(limit: Int) -> HTTPParseError {
        HTTPParseError(.headersTooLarge, .requestHeaderFieldsTooLarge,
                       "request headers exceed \(limit) bytes; send smaller headers")
    }

    static func tooManyHeaders(limit: Int) -> HTTPParseError {
        HTTPParseError(.headersTooLarge, .requestHeaderFieldsTooLarge,
                       "request has more than \(limit) header fields; send fewer headers")
    }

    static func trailersTooLarge(limit: Int) -> HTTPParseError {
        HTTPParseError(.headersTooLarge, .requestHeaderFieldsTooLarge,
                       "chunked trailer section exceeds \(limit) bytes; send smaller trailers")
    }

    static func tooManyTrailers(limit: Int) -> HTTPParseError {
        HTTPParseError(.headersTooLarge, .requestHeaderFieldsTooLarge,
                       "chunked trailer section has more than \(limit) fields; send fewer trailers")
    }

    static func invalidHeader(_ detail: String) -> HTTPParseError {
        HTTPParseError(.invalidHeader, .badRequest, detail)
    }

    static var obsoleteLineFolding: HTTPParseError {
        invalidHeader("header line starts with whitespace (obsolete line folding, RFC 9112 §5.2); "
            + "send each header value on a single line")
    }

    static func whitespaceBeforeColon(_ name: String) -> HTTPParseError {
        invalidHeader("whitespace between header name `\(name)` and the colon (RFC 9112 §5.1); "
            + "write `Name: value` with no space before the colon")
    }

    static var missingHost: HTTPParseError {
        HTTPParseError(.missingHost, .badRequest,
                       "HTTP/1.1 request without a Host header; send `Host: <host>[:port]`")
    }

    static var duplicateHost: HTTPParseError {
        HTTPParseError(.missingHost, .badRequest,
                       "request has more than one Host header; send exactly one")
    }

    // MARK: Framing

    static func invalidContentLength(_ value: String) -> HTTPParseError {
        HTTPParseError(.invalidContentLength, .badRequest,
                       "Content-Length `\(value)` is not a non-negative decimal number; send the body size in bytes")
    }

    static var conflictingContentLength: HTTPParseError {
        HTTPParseError(.invalidContentLength, .badRequest,
                       "request has differing Content-Length values; send exactly one Content-Length")
    }

    static func bodyTooLarge(limit: Int) -> HTTPParseError {
        HTTPParseError(.bodyTooLarge, .payloadTooLarge,
                       "request body exceeds \(limit) bytes; send a smaller body")
    }

    static func unsupportedTransferEncoding(_ coding: String) -> HTTPParseError {
        HTTPParseError(.unsupportedTransferEncoding, .notImplemented,
                       "transfer coding `\(coding)` is not supported; send the body with Content-Length or "
                       + "`Transfer-Encoding: chunked`")
    }

    static var chunkedNotLast: HTTPParseError {
        HTTPParseError(.invalidFraming, .badRequest,
                       "Transfer-Encoding must end with a single `chunked`; send `Transfer-Encoding: chunked`")
    }

    static var contentLengthWithTransferEncoding: HTTPParseError {
        HTTPParseError(.invalidFraming, .badRequest,
                       "request has both Transfer-Encoding and Content-Length; send only one of them")
    }

    static var transferEncodingInHTTP10: HTTPParseError {
        HTTPParseError(.invalidFraming, .badRequest,
                       "HTTP/1.0 has no Transfer-Encoding; use HTTP/1.1 for chunked bodies or send Content-Length")
    }

    static func invalidChunk(_ detail: String) -> HTTPParseError {
        HTTPParseError(.invalidChunk, .badRequest, detail + "; send `<hex size>\\r\\n<data>\\r\\n` chunks ending with `0\\r\\n\\r\\n`")
    }

    static func unsupportedExpectation(_ value: String) -> HTTPParseError {
        HTTPParseError(.unsupportedExpectation, .expectationFailed,
                       "Expect `\(value)` is not supported; send only `Expect: 100-continue` or no Expect header")
    }
}
