/// Why a response could not be read.
public struct HTTPResponseParseError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable { case malformed, tooLarge, truncated }
    private let code: Code
    public let description: String

    public static func malformed(_ what: String) -> HTTPResponseParseError { .init(code: .malformed, description: "malformed response: \(what)") }
    public static func tooLarge(_ what: String) -> HTTPResponseParseError { .init(code: .tooLarge, description: "response too large: \(what)") }
    public static let truncated = HTTPResponseParseError(code: .truncated, description: "the connection closed before the response was complete")
}
