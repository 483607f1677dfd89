import UnderstudyJSON

/// A response to serialize. `Content-Length`, `Date`, `Server` and `Connection` are added by
/// `HTTPSerializer`.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` as compact JSON with `Content-Type: application/json` (unless `headers` sets one).
    public static func json(_ value: JSONValue, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        if !headers.contains("Content-Type") {
            headers.add(name: "Content-Type", value: "application/json")
        }
        return HTTPResponse(status: status, headers: headers, body: value.serializedBytes())
    }

    /// An error in the shape every Understudy endpoint uses:
    /// `{"error": "<code>", "message": "<what was wrong and what to do>"}` as application/json.
    public static func problem(_ status: HTTPStatus, error: String, message: String) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(32 + error.utf8.count + message.utf8.count)
        body.append(contentsOf: #"{"error":"#.utf8)
        JSONValue.writeString(error, into: &body)
        body.append(contentsOf: #","message":"#.utf8)
        JSONValue.writeString(message, into: &body)
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    public static func text(_ s: String, status: HTTPStatus = .ok,
                            contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(s.utf8))
    }
}
