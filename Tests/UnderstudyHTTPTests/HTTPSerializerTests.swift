import Testing
@testable import UnderstudyHTTP

@Suite struct HTTPSerializerTests {
    /// The output as text with the Date line checked for shape and replaced by `Date: <date>`.
    func text(_ bytes: [UInt8]) -> String {
        var lines = String(decoding: bytes, as: UTF8.self).components(separatedByCRLF: ())
        for index in lines.indices where lines[index].hasPrefix("Date: ") {
            let value = lines[index].dropFirst(6)
            #expect(value.count == 29 && value.hasSuffix(" GMT"), "IMF-fixdate: \(value)")
            lines[index] = "Date: <date>"
        }
        return lines.joined(separator: "\r\n")
    }

    struct SerializerCase: CustomStringConvertible, Sendable {
        var name: String
        var response: HTTPResponse
        var method: HTTPMethod
        var keepAlive: Bool
        var expected: String
        var description: String { name }
    }

    static let cases: [SerializerCase] = [
        SerializerCase(name: "normal", response: .text("hi"), method: .get, keepAlive: true,
                       expected: "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: <date>\r\n"
                           + "Server: understudy\r\nContent-Length: 2\r\n\r\nhi"),
        SerializerCase(name: "HEAD: head only, Content-Length of the body", response: .text("hello"), method: .head,
                       keepAlive: true,
                       expected: "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: <date>\r\n"
                           + "Server: understudy\r\nContent-Length: 5\r\n\r\n"),
        SerializerCase(name: "HEAD with an explicit length and no body keeps it",
                       response: HTTPResponse(headers: ["Content-Length": "42"]), method: .head, keepAlive: true,
                       expected: "HTTP/1.1 200 OK\r\nContent-Length: 42\r\nDate: <date>\r\nServer: understudy\r\n\r\n"),
        SerializerCase(name: "204: no Content-Length, no body", response: HTTPResponse(status: .noContent, body: [1, 2]),
                       method: .delete, keepAlive: true,
                       expected: "HTTP/1.1 204 No Content\r\nDate: <date>\r\nServer: understudy\r\n\r\n"),
        SerializerCase(name: "304: no Content-Length, no body",
                       response: HTTPResponse(status: .notModified, headers: ["ETag": "\"v1\""]),
                       method: .get, keepAlive: true,
                       expected: "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nDate: <date>\r\nServer: understudy\r\n\r\n"),
        SerializerCase(name: "close", response: HTTPResponse(status: .notFound, headers: ["Connection": "keep-alive"]),
                       method: .get, keepAlive: false,
                       expected: "HTTP/1.1 404 Not Found\r\nDate: <date>\r\nServer: understudy\r\nConnection: close\r\n"
                           + "Content-Length: 0\r\n\r\n"),
        SerializerCase(name: "framing headers from the handler are replaced",
                       response: HTTPResponse(headers: ["content-length": "999", "Transfer-Encoding": "chunked"], body: [0x61]),
                       method: .post, keepAlive: true,
                       expected: "HTTP/1.1 200 OK\r\nDate: <date>\r\nServer: understudy\r\nContent-Length: 1\r\n\r\na"),
        SerializerCase(name: "handler's Date and Server are kept",
                       response: HTTPResponse(status: HTTPStatus(code: 299, reasonPhrase: "Custom"),
                                              headers: ["Date": "Thu, 01 Jan 1970 00:00:00 GMT", "server": "other"]),
                       method: .get, keepAlive: true,
                       expected: "HTTP/1.1 299 Custom\r\nDate: <date>\r\nserver: other\r\nContent-Length: 0\r\n\r\n"),
        SerializerCase(name: "CR/LF in a header value cannot split the response",
                       response: HTTPResponse(status: .found, headers: ["Location": "/x\r\nSet-Cookie: evil=1"]),
                       method: .get, keepAlive: true,
                       expected: "HTTP/1.1 302 Found\r\nLocation: /x  Set-Cookie: evil=1\r\nDate: <date>\r\n"
                           + "Server: understudy\r\nContent-Length: 0\r\n\r\n"),
    ]

    @Test(arguments: cases)
    func serialize(_ test: SerializerCase) {
        let bytes = HTTPSerializer.serialize(test.response, requestMethod: test.method, keepAlive: test.keepAlive)
        #expect(text(bytes) == test.expected)
    }

    @Test func http10KeepAliveIsAnnounced() {
        let bytes = HTTPSerializer.serialize(.text("x"), requestMethod: .get, requestVersion: .http1_0, keepAlive: true)
        #expect(text(bytes).contains("\r\nConnection: keep-alive\r\n"))
        let closing = HTTPSerializer.serialize(.text("x"), requestMethod: .get, requestVersion: .http1_0, keepAlive: false)
        #expect(text(closing).contains("\r\nConnection: close\r\n"))
        #expect(!text(closing).contains("keep-alive"))
    }

    @Test func streamHead() {
        let response = HTTPResponse(headers: ["Content-Type": "text/event-stream", "Content-Length": "3"], body: [1, 2, 3])
        #expect(text(HTTPSerializer.serializeStreamHead(response, keepAlive: true))
            == "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nDate: <date>\r\nServer: understudy\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n")
        #expect(text(HTTPSerializer.serializeStreamHead(response, keepAlive: false))
            == "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nDate: <date>\r\nServer: understudy\r\n"
            + "Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n")
    }

    @Test(arguments: [(0, ""), (1, "1"), (5, "5"), (15, "f"), (16, "10"), (255, "ff"), (4096, "1000"), (70000, "11170")])
    func chunk(size: Int, hex: String) {
        let data = [UInt8](repeating: 0x78, count: size)
        let expected: [UInt8] = size == 0 ? [] : Array("\(hex)\r\n".utf8) + data + Array("\r\n".utf8)
        #expect(HTTPSerializer.chunk(data) == expected)
    }

    @Test func fixedMessages() {
        #expect(HTTPSerializer.lastChunk == Array("0\r\n\r\n".utf8))
        #expect(HTTPSerializer.continueResponse == Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    /// A streamed body decodes back through the parser's chunked decoder.
    @Test func chunksRoundTripThroughTheParser() {
        var input = Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for piece in ["data: one\n\n", "", String(repeating: "y", count: 300)] {
            input += HTTPSerializer.chunk(Array(piece.utf8))
        }
        input += HTTPSerializer.lastChunk
        #expect(outcomes(input, feed: .whole)
            == [.request(Parsed("POST", "/", body: "data: one\n\n" + String(repeating: "y", count: 300)))])
    }

    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),   // RFC 9110 §5.6.7 example
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_798_761_599, "Thu, 31 Dec 2026 23:59:59 GMT"),
        (4_107_542_400, "Mon, 01 Mar 2100 00:00:00 GMT"),
    ])
    func dateLine(seconds: Int, expected: String) {
        #expect(HTTPDateCache.dateLine(epochSeconds: seconds) == Array("Date: \(expected)\r\n".utf8))
    }

    /// Many threads share the per-second Date cache; every response still gets one well-formed line.
    @Test func dateCacheIsSafeAcrossThreads() async {
        let heads = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<500).map { _ in
                        let bytes = HTTPSerializer.serialize(.text("x"), requestMethod: .get, keepAlive: true)
                        return String(decoding: bytes, as: UTF8.self)
                    }
                }
            }
            var all: [String] = []
            for await part in group { all += part }
            return all
        }
        #expect(heads.count == 4000)
        for head in heads {
            let dates = head.components(separatedByCRLF: ()).filter { $0.hasPrefix("Date: ") }
            #expect(dates.count == 1 && dates[0].count == 35 && dates[0].hasSuffix(" GMT"))
        }
    }

    @Test func parseErrorSerializesAsClosingJSONProblem() throws {
        let error = try #require(parseError("GET / HTTP/1.1\r\n\r\n", feed: .whole))
        let bytes = HTTPSerializer.serialize(error.response, requestMethod: .get, keepAlive: false)
        let body = #"{"error":"missing_host","message":"HTTP/1.1 request without a Host header; send `Host: <host>[:port]`"}"#
        #expect(text(bytes) == "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nDate: <date>\r\n"
            + "Server: understudy\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    @Test func statusPhrases() {
        #expect(HTTPStatus(code: 431).reasonPhrase == "Request Header Fields Too Large")
        #expect(HTTPStatus.payloadTooLarge.code == 413)
        #expect(HTTPStatus(code: 404, reasonPhrase: "Nope") == .notFound)
        #expect(HTTPStatus(code: 599).reasonPhrase == "Unknown")
    }
}

extension String {
    /// Splits on CRLF only (a bare LF inside a body stays).
    func components(separatedByCRLF: ()) -> [String] {
        var result: [String] = []
        var current: [UInt8] = []
        var bytes = Array(utf8)[...]
        while let byte = bytes.first {
            if byte == 0x0D, bytes.dropFirst().first == 0x0A {
                result.append(String(decoding: current, as: UTF8.self))
                current = []
                bytes = bytes.dropFirst(2)
            } else {
                current.append(byte)
                bytes = bytes.dropFirst()
            }
        }
        result.append(String(decoding: current, as: UTF8.self))
        return result
    }
}

@Suite struct HTTPSerializerDefaultHeadersTests {
    static let defaults: HTTPHeaders = ["X-Content-Type-Options": "nosniff", "Content-Security-Policy": "frame-ancestors 'none'"]

    func head(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func defaultsAreWrittenUnlessTheResponseSetsTheField() {
        let plain = head(HTTPSerializer.serialize(.text("hi"), requestMethod: .get, requestVersion: .http1_1,
                                                  keepAlive: true, defaults: Self.defaults))
        #expect(plain.contains("X-Content-Type-Options: nosniff"))
        #expect(plain.contains("Content-Security-Policy: frame-ancestors 'none'"))

        var own = HTTPResponse.text("hi")
        own.headers.add(name: "content-security-policy", value: "sandbox")
        let lines = head(HTTPSerializer.serialize(own, requestMethod: .get, requestVersion: .http1_1,
                                                  keepAlive: false, defaults: Self.defaults))
        #expect(lines.contains("content-security-policy: sandbox"))
        #expect(!lines.contains { $0.hasPrefix("Content-Security-Policy") })
        #expect(lines.contains("X-Content-Type-Options: nosniff"))

        let stream = head(HTTPSerializer.serializeStreamHead(HTTPResponse(status: .ok), keepAlive: true, defaults: Self.defaults))
        #expect(stream.contains("X-Content-Type-Options: nosniff"))
    }
}
