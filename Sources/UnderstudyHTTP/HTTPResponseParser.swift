/// An HTTP/1.1 response, parsed as it arrives (for Understudy's own requests: Apple's notifications
/// to an app). A value: bytes in, a response out once complete; bounded head and body.
public struct HTTPResponseParser: Sendable {
    enum State: Sendable {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case done
    }

    public static let maximumHead = 16 * 1024
    public let maximumBody: Int
    private var state = State.head
    private var buffer: [UInt8] = []
    private var status = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    /// Responses to HEAD and 1xx/204/304 carry no body.
    private let noBody: Bool

    public init(maximumBody: Int = 1 << 20, requestMethod: String = "POST") {
        self.maximumBody = maximumBody
        self.noBody = requestMethod == "HEAD"
    }

    /// The response, once complete.
    public var response: HTTPResponse? {
        guard case .done = state else { return nil }
        return HTTPResponse(status: HTTPStatus(code: status), headers: headers, body: body)
    }

    /// Takes the next bytes; true once the response is complete.
    public mutating func consume(_ bytes: some Sequence<UInt8>) throws(HTTPResponseParseError) -> Bool {
        buffer.append(contentsOf: bytes)
        try advance()
        if case .done = state { return true }
        return false
    }

    /// The peer closed: completes a body delimited by the close, else it came too early.
    public mutating func finish() throws(HTTPResponseParseError) {
        switch state {
        case .untilClose: state = .done
        case .done: break
        default: throw .truncated
        }
    }

    private mutating func line() throws(HTTPResponseParseError) -> String? {
        guard let lf = buffer.firstIndex(of: 10) else {
            if buffer.count > Self.maximumHead { throw .tooLarge("a header line") }
            return nil
        }
        var end = lf
        if end > 0 && buffer[end - 1] == 13 { end -= 1 }
        let text = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(lf + 1)
        return text
    }

    private mutating func advance() throws(HTTPResponseParseError) {
        var headBytes = 0
        while true {
            switch state {
            case .head:
                guard let l = try line() else { return }
                headBytes += l.utf8.count + 2
                if headBytes > Self.maximumHead { throw .tooLarge("the head") }
                if status == 0 {
                    let parts = l.split(separator: " ", maxSplits: 2)
                    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]), (100...599).contains(code) else {
                        throw .malformed("not an HTTP/1.x status line")
                    }
                    status = code
                    continue
                }
                if !l.isEmpty {
                    guard let colon = l.firstIndex(of: ":") else { throw .malformed("a header line without a colon") }
                    headers.add(name: String(l[..<colon]), value: String(l[l.index(after: colon)...]).trimmed)
                    continue
                }
                if (100...199).contains(status) { status = 0; headers = HTTPHeaders(); continue }  // interim response
                if noBody || status == 204 || status == 304 { state = .done; return }
                if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
                    state = .chunkSize
                } else if let length = headers["Content-Length"] {
                    guard let n = Int(length.trimmed), n >= 0 else { throw .malformed("Content-Length is not a number") }
                    if n > maximumBody { throw .tooLarge("the body (\(n) bytes)") }
                    state = n == 0 ? .done : .body(remaining: n)
                } else {
                    state = .untilClose
                }
            case .body(let remaining):
                let n = min(remaining, buffer.count)
                body += buffer.prefix(n)
                buffer.removeFirst(n)
                if n == remaining { state = .done } else { state = .body(remaining: remaining - n); return }
            case .chunkSize:
                guard let l = try line() else { return }
                guard let size = Int(l.split(separator: ";").first.map(String.init)?.trimmed ?? "", radix: 16), size >= 0 else {
                    throw .malformed("a chunk size is not hexadecimal")
                }
                if body.count + size > maximumBody { throw .tooLarge("the body") }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let n = min(remaining, buffer.count)
                body += buffer.prefix(n)
                buffer.removeFirst(n)
                if n == remaining { state = .chunkEnd } else { state = .chunkData(remaining: remaining - n); return }
            case .chunkEnd:
                guard try line() != nil else { return }
                state = .chunkSize
            case .trailers:
                guard let l = try line() else { return }
                if l.isEmpty { state = .done }
            case .untilClose:
                if body.count + buffer.count > maximumBody { throw .tooLarge("the body") }
                body += buffer
                buffer.removeAll()
                return
            case .done:
                return
            }
        }
    }
}

extension String {
    fileprivate var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
