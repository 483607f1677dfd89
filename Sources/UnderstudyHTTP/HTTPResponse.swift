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

    /// An error in the shape every Understudy endpoint uses:
    /// `{"error": "<code>", "message": "<what was wrong and what to do>"}` as application/json.
    public static func problem(_ status: HTTPStatus, error: String, message: String) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(32 + error.utf8.count + message.utf8.count)
        body.append(contentsOf: #"{"error":"#.utf8)
        JSONText.appendQuoted(error, to: &body)
        body.append(contentsOf: #","message":"#.utf8)
        JSONText.appendQuoted(message, to: &body)
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    public static func text(_ s: String, status: HTTPStatus = .ok,
                            contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(s.utf8))
    }
}

/// Minimal JSON string quoting for problem bodies, which are built on the error path of the parser.
enum JSONText {
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
