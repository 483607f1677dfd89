import Testing
import UnderstudyHTTP

@Suite struct HTTPResponseParserTests {
    static let cases: [(String, Int, String)] = [
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, "hello"),
        ("HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nX-T: 1\r\n\r\n", 400, "abcde"),
        ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", 204, ""),
        ("HTTP/1.0 500 Oops\nContent-Length: 2\n\nno", 500, "no"),
    ]

    @Test(arguments: cases)
    func wholeAndByteByByte(_ text: String, _ status: Int, _ body: String) throws {
        var whole = HTTPResponseParser()
        #expect(try whole.consume(Array(text.utf8)))
        var bytewise = HTTPResponseParser()
        var done = false
        for b in text.utf8 { done = try bytewise.consume([b]) }
        #expect(done)
        for p in [whole, bytewise] {
            #expect(p.response?.status.code == status)
            #expect(p.response.map { String(decoding: $0.body, as: UTF8.self) } == body)
        }
    }

    @Test func aBodyDelimitedByCloseEndsAtTheClose() throws {
        var p = HTTPResponseParser()
        #expect(try !p.consume(Array("HTTP/1.1 200 OK\r\n\r\npart".utf8)))
        try p.finish()
        #expect(p.response?.body == Array("part".utf8))
        var cut = HTTPResponseParser()
        _ = try cut.consume(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc".utf8))
        #expect(throws: HTTPResponseParseError.self) { try cut.finish() }
    }

    @Test func limitsAndGarbageAreErrors() {
        var big = HTTPResponseParser(maximumBody: 4)
        #expect(throws: HTTPResponseParseError.self) { try big.consume(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n".utf8)) }
        var garbage = HTTPResponseParser()
        #expect(throws: HTTPResponseParseError.self) { try garbage.consume(Array("SMTP 220 hello\r\n".utf8)) }
        var endless = HTTPResponseParser()
        #expect(throws: HTTPResponseParseError.self) {
            try endless.consume(Array("HTTP/1.1 200 OK\r\n".utf8) + [UInt8](repeating: 65, count: 20_000))
        }
    }
}
