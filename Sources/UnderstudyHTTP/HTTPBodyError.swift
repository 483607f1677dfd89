/// A request body that is not what the endpoint accepts. `response` is the JSON problem to send.
public struct HTTPBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case unsupportedMediaType = "unsupported_media_type"
        case invalidJSON = "invalid_json"
        case invalidForm = "invalid_form"
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

    public var errorCode: String { code.rawValue }

    public var response: HTTPResponse {
        HTTPResponse.problem(status, error: code.rawValue, message: message)
    }

    public var description: String { "\(status.code) \(code.rawValue): \(message)" }

    static func unsupportedMediaType(got: String?, expected: String) -> HTTPBodyError {
        HTTPBodyError(.unsupportedMediaType, .unsupportedMediaType,
                      "Content-Type is \(got.map { "`\($0)`" } ?? "missing"); send the body as \(expected)")
    }

    static func invalidForm(_ detail: String) -> HTTPBodyError {
        HTTPBodyError(.invalidForm, .badRequest, "request body: \(detail); send a valid multipart/form-data body")
    }

    static func invalidJSON(_ detail: String) -> HTTPBodyError {
        HTTPBodyError(.invalidJSON, .badRequest, "request body: \(detail); send a valid JSON document")
    }
}
