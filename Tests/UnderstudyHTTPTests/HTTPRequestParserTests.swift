import Testing
import UnderstudyJSON
@testable import UnderstudyHTTP

/// A named input and the events it must produce.
struct ParserCase: CustomStringConvertible, Sendable {
    var name: String
    var input: String
    var expected: [Outcome]
    var description: String { name }
}

extension Outcome: @unchecked Sendable {}

@Suite struct HTTPRequestParserAcceptsTests {
    static let cases: [ParserCase] = [
        ParserCase(name: "simple GET", input: "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("GET", "/hello"))]),
        ParserCase(name: "query form-decoded, path percent-decoded",
                   input: "GET /a%20b/caf%C3%A9?q=a+b%20c&empty=&flag&&x=%E2%9C%93&bad=%zz&p=1%2B1 HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("GET", "/a b/café",
                                              query: ["q=a b c", "empty=", "flag=", "x=✓", "bad=%zz", "p=1+1"]))]),
        ParserCase(name: "POST with Content-Length",
                   input: "POST /submit HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world",
                   expected: [.request(Parsed("POST", "/submit", body: "hello world"))]),
        ParserCase(name: "identical repeated Content-Length",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc",
                   expected: [.request(Parsed("POST", "/", body: "abc"))]),
        ParserCase(name: "Content-Length zero",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                   expected: [.request(Parsed("POST", "/"))]),
        ParserCase(name: "chunked with extensions and trailers",
                   input: "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                       + "5;name=value\r\nhello\r\n6 ; ext;other=\"q\"\r\n world\r\nA\r\n0123456789\r\n"
                       + "0\r\nX-Checksum: abc\r\nX-Other: def\r\n\r\n",
                   expected: [.request(Parsed("POST", "/up", body: "hello world0123456789"))]),
        ParserCase(name: "chunked, case-insensitive coding, uppercase hex, bare LF",
                   input: "POST / HTTP/1.1\nHost: x\nTransfer-Encoding: Chunked\n\n0B\nhello world\n0\n\n",
                   expected: [.request(Parsed("POST", "/", body: "hello world"))]),
        ParserCase(name: "chunked with no data",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                   expected: [.request(Parsed("POST", "/"))]),
        ParserCase(name: "pipelined requests in one buffer",
                   input: "GET /one HTTP/1.1\r\nHost: x\r\n\r\n"
                       + "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                       + "PUT /three HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
                       + "DELETE /four HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("GET", "/one")), .request(Parsed("POST", "/two", body: "abc")),
                              .request(Parsed("PUT", "/three", body: "hi")), .request(Parsed("DELETE", "/four"))]),
        ParserCase(name: "HTTP/1.0 closes by default, no Host needed",
                   input: "GET /old HTTP/1.0\r\n\r\nGET /ignored HTTP/1.0\r\n\r\n",
                   expected: [.request(Parsed("GET", "/old", keepAlive: false, version: .http1_0))]),
        ParserCase(name: "HTTP/1.0 with Connection: keep-alive stays open",
                   input: "GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\nGET /b HTTP/1.0\r\n\r\n",
                   expected: [.request(Parsed("GET", "/a", keepAlive: true, version: .http1_0)),
                              .request(Parsed("GET", "/b", keepAlive: false, version: .http1_0))]),
        ParserCase(name: "HTTP/1.1 Connection: close ends the connection; later bytes ignored",
                   input: "GET /a HTTP/1.1\r\nHost: x\r\nConnection: upgrade, close\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("GET", "/a", keepAlive: false))]),
        ParserCase(name: "expect 100-continue before the body",
                   input: "POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nContent-Length: 4\r\n\r\nbody",
                   expected: [.expectContinue, .request(Parsed("POST", "/e", body: "body"))]),
        ParserCase(name: "expect 100-continue with chunked body",
                   input: "POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n",
                   expected: [.expectContinue, .request(Parsed("POST", "/e", body: "z"))]),
        ParserCase(name: "expect 100-continue without a body: no interim response",
                   input: "GET /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
                   expected: [.request(Parsed("GET", "/e"))]),
        ParserCase(name: "expect ignored on HTTP/1.0",
                   input: "POST /e HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
                   expected: [.request(Parsed("POST", "/e", body: "x", keepAlive: false, version: .http1_0))]),
        ParserCase(name: "absolute-form target",
                   input: "GET http://example.com:8080/p%41th?x=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
                   expected: [.request(Parsed("GET", "/pAth", query: ["x=1"]))]),
        ParserCase(name: "absolute-form target without a path",
                   input: "GET HTTPS://example.com?y=2 HTTP/1.1\r\nHost: example.com\r\n\r\n",
                   expected: [.request(Parsed("GET", "/", query: ["y=2"]))]),
        ParserCase(name: "asterisk-form for OPTIONS",
                   input: "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("OPTIONS", "*"))]),
        ParserCase(name: "empty lines before the request line are ignored",
                   input: "\r\n\r\n\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("GET", "/"))]),
        ParserCase(name: "bare LF line endings tolerated",
                   input: "GET /lf HTTP/1.1\nHost: x\n\n",
                   expected: [.request(Parsed("GET", "/lf"))]),
        ParserCase(name: "extension method",
                   input: "PROPFIND /dav HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("PROPFIND", "/dav"))]),
        ParserCase(name: "empty header value and obs-text are accepted",
                   input: "GET / HTTP/1.1\r\nHost: x\r\nX-Empty:\r\nX-Tabs:\t a\tb \t\r\n\r\n",
                   expected: [.request(Parsed("GET", "/"))]),
    ]

    @Test(arguments: cases, Feed.allCases)
    func accepts(_ test: ParserCase, feed: Feed) {
        #expect(outcomes(test.input, feed: feed) == test.expected)
    }

    @Test(arguments: Feed.allCases)
    func headersKeepOrderAndSpellingAndTrimWhitespace(feed: Feed) throws {
        let input = "GET / HTTP/1.1\r\nHost: example.test\r\nX-Multi: one\r\nx-multi:  two  \r\nX-Tabs:\t a\tb \t\r\nX-Empty:\r\n\r\n"
        let request = try #require(requests(input, feed: feed).first)
        #expect(request.headers["host"] == "example.test")
        #expect(request.headers.values(for: "X-MULTI") == ["one", "two"])
        #expect(request.headers["X-Tabs"] == "a\tb")
        #expect(request.headers["X-Empty"] == "")
        #expect(request.headers.map(\.name) == ["Host", "X-Multi", "x-multi", "X-Tabs", "X-Empty"])
        #expect(request.target == "/")
    }

    @Test(arguments: Feed.allCases)
    func trailersAreDroppedFromHeaders(feed: Feed) throws {
        let input = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-Trailer: t\r\n\r\n"
        let request = try #require(requests(input, feed: feed).first)
        #expect(!request.headers.contains("X-Trailer"))
        #expect(request.body == Array("a".utf8))
    }

    @Test(arguments: Feed.allCases)
    func rawTargetIsKept(feed: Feed) throws {
        let input = "GET /a%2Fb?x=%20 HTTP/1.1\r\nHost: x\r\n\r\n"
        let request = try #require(requests(input, feed: feed).first)
        #expect(request.target == "/a%2Fb?x=%20")
        #expect(request.path == "/a/b")
        #expect(request.queryValue("x") == " ")
        #expect(request.queryValue("missing") == nil)
    }

    /// Every split point of a pipelined input gives the same events as one feed.
    @Test func everyTwoPieceSplitGivesTheSameEvents() {
        let input = Array(("GET /one?a=1 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /two HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3;x=y\r\nabc\r\n0\r\nT: v\r\n\r\nPOST /three HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi").utf8)
        let expected = outcomes(input, feed: .whole)
        #expect(expected.count == 4)
        for split in 0...input.count {
            var parser = HTTPRequestParser()
            var got: [Outcome] = []
            for piece in [input[..<split], input[split...]] {
                parser.feed(piece)
                while let event = parser.next() {
                    switch event {
                    case .expectContinue: got.append(.expectContinue)
                    case .request(let request): got.append(.request(Parsed(request)))
                    case .error(let error): got.append(.error(error.status.code))
                    }
                }
            }
            #expect(got == expected, "split at \(split)")
        }
    }

    @Test func hasPartialRequestTracksUnfinishedRequests() {
        var parser = HTTPRequestParser()
        #expect(!parser.hasPartialRequest)
        parser.feed(Array("GET / HTTP/1.1\r\nHo".utf8))
        #expect(parser.next() == nil)
        #expect(parser.hasPartialRequest)
        parser.feed(Array("st: x\r\n\r\nPOST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab".utf8))
        guard case .request = parser.next() else {
            Issue.record("expected the GET")
            return
        }
        #expect(parser.hasPartialRequest)
        #expect(parser.next() == nil)
        #expect(parser.hasPartialRequest)
        parser.feed(Array("cde".utf8))
        guard case .request(let post) = parser.next() else {
            Issue.record("expected the POST")
            return
        }
        #expect(post.body == Array("abcde".utf8))
        #expect(parser.next() == nil)
        #expect(!parser.hasPartialRequest)
    }
}

@Suite struct HTTPRequestParserRejectsTests {
    static let head = "Host: x\r\n\r\n"
    static let cases: [ParserCase] = [
        // Request line
        ParserCase(name: "HTTP/2.0 -> 505", input: "GET / HTTP/2.0\r\n" + head, expected: [.error(505)]),
        ParserCase(name: "HTTP/1.2 -> 505", input: "GET / HTTP/1.2\r\n" + head, expected: [.error(505)]),
        ParserCase(name: "HTTP/0.9 -> 505", input: "GET / HTTP/0.9\r\n" + head, expected: [.error(505)]),
        ParserCase(name: "malformed version -> 400", input: "GET / HTTX/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "lowercase version -> 400", input: "GET / http/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "two-part request line -> 400", input: "GET /\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "double space -> 400", input: "GET  / HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "space in target -> 400", input: "GET /a b HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "method not a token -> 400", input: "G(T / HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "leading space -> 400", input: " GET / HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "control byte in target -> 400", input: "GET /\u{01} HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "bare CR in request line -> 400", input: "GET /\r HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "invalid percent-escape -> 400", input: "GET /a%zz HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "truncated percent-escape -> 400", input: "GET /a%4 HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "escape that is not UTF-8 -> 400", input: "GET /a%C3 HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "asterisk without OPTIONS -> 400", input: "GET * HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "authority-form -> 400", input: "GET example.com:80 HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "CONNECT to a path -> 400", input: "CONNECT / HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "CONNECT without a port -> 400", input: "CONNECT example.com HTTP/1.1\r\n" + head, expected: [.error(400)]),
        ParserCase(name: "CONNECT to a URL -> 400", input: "CONNECT http://example.com:443 HTTP/1.1\r\n" + head, expected: [.error(400)]),
        // Header fields
        ParserCase(name: "whitespace before colon -> 400", input: "GET / HTTP/1.1\r\nHost : x\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "tab before colon -> 400", input: "GET / HTTP/1.1\r\nHost\t: x\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "obs-fold -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\nX-A: one\r\n  two\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "obs-fold with tab -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\nX-A: one\r\n\ttwo\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "no colon -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "empty name -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "space inside name -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "control byte in value -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{01}b\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "NUL in value -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{00}b\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "bare CR in value -> 400", input: "GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "missing Host on 1.1 -> 400", input: "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "two Host headers -> 400", input: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", expected: [.error(400)]),
        // Content-Length
        ParserCase(name: "Content-Length not digits -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "negative Content-Length -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "signed Content-Length -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\nx", expected: [.error(400)]),
        ParserCase(name: "empty Content-Length -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "differing Content-Length list -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello", expected: [.error(400)]),
        ParserCase(name: "differing Content-Length headers -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
                   expected: [.error(400)]),
        ParserCase(name: "Content-Length past Int -> 413",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                   expected: [.error(413)]),
        // Transfer-Encoding
        ParserCase(name: "gzip coding -> 501",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", expected: [.error(501)]),
        ParserCase(name: "gzip before chunked -> 501",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", expected: [.error(501)]),
        ParserCase(name: "chunked twice -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                   expected: [.error(400)]),
        ParserCase(name: "empty Transfer-Encoding -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "Transfer-Encoding and Content-Length -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                   expected: [.error(400)]),
        ParserCase(name: "Transfer-Encoding on HTTP/1.0 -> 400",
                   input: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", expected: [.error(400)]),
        // Chunks
        ParserCase(name: "chunk size not hex -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", expected: [.error(400)]),
        ParserCase(name: "empty chunk size -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", expected: [.error(400)]),
        ParserCase(name: "garbage after chunk size -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\nhello\r\n0\r\n\r\n",
                   expected: [.error(400)]),
        ParserCase(name: "negative chunk size -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", expected: [.error(400)]),
        ParserCase(name: "chunk data longer than its size -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n",
                   expected: [.error(400)]),
        ParserCase(name: "chunk data followed by CR without LF -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rx\n0\r\n\r\n",
                   expected: [.error(400)]),
        ParserCase(name: "huge chunk size -> 413",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
                   expected: [.error(413)]),
        ParserCase(name: "malformed trailer -> 400",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer\r\n\r\n",
                   expected: [.error(400)]),
        // Expect
        ParserCase(name: "unknown expectation -> 417",
                   input: "POST / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\nx", expected: [.error(417)]),
        // Errors stop the connection: the pipelined request after a bad one is never parsed.
        ParserCase(name: "nothing after an error",
                   input: "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /bad HTTP/9.9\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
                   expected: [.request(Parsed("GET", "/")), .error(505)]),
    ]

    @Test(arguments: cases, Feed.allCases)
    func rejects(_ test: ParserCase, feed: Feed) {
        #expect(outcomes(test.input, feed: feed) == test.expected)
    }

    /// Every error response is a JSON problem with a code and a message that says what to do.
    @Test(arguments: cases, Feed.allCases)
    func errorResponsesAreJSONProblems(_ test: ParserCase, feed: Feed) throws {
        let error = try #require(parseError(test.input, feed: feed))
        let response = error.response
        #expect(response.status == error.status)
        #expect(response.headers["Content-Type"] == "application/json")
        let body = try JSONValue.parse(response.body)
        #expect(body["error"]?.stringValue == error.errorCode)
        let message = try #require(body["message"]?.stringValue)
        #expect(message == error.message)
        #expect(message.contains(";"), "message says what to do: \(message)")
    }

    @Test func messagesNameTheProblemAndTheFix() throws {
        let tooLarge = try #require(parseError("GET /\(String(repeating: "a", count: 17000)) HTTP/1.1\r\n\r\n", feed: .whole))
        #expect(tooLarge.status == .requestHeaderFieldsTooLarge)
        #expect(tooLarge.message == "request headers exceed 16384 bytes; send smaller headers")

        let missingHost = try #require(parseError("GET / HTTP/1.1\r\n\r\n", feed: .whole))
        #expect(missingHost.message.contains("Host"))

        let version = try #require(parseError("GET / HTTP/2.0\r\n\r\n", feed: .whole))
        #expect(version.message == "HTTP/2.0 is not supported; send HTTP/1.1 (or HTTP/1.0)")

        let escape = try #require(parseError("GET /100% HTTP/1.1\r\n\r\n", feed: .whole))
        #expect(escape.message.contains("/100%"))
        #expect(escape.message.contains("%25"))
    }

    @Test func bytesAfterAnErrorAreIgnored() {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET / HTTP/3\r\n\r\n".utf8))
        guard case .error = parser.next() else {
            Issue.record("expected an error")
            return
        }
        parser.feed(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(parser.next() == nil)
        #expect(!parser.hasPartialRequest)
    }

    /// A CONNECT's head is a request like any; what follows it is the tunnel's, kept whole however
    /// it was split, and never parsed as HTTP.
    @Test(arguments: Feed.allCases)
    func connectEndsParsingAndKeepsTheTunnelBytes(feed: Feed) {
        let hello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x05] + Array("GET / HTTP/1.1\r\n\r\n".utf8)
        let input = Array("CONNECT appleid.apple.com:443 HTTP/1.1\r\nHost: appleid.apple.com:443\r\n\r\n".utf8) + hello
        var parser = HTTPRequestParser()
        var seen: [HTTPParserEvent] = []
        let pieces: [ArraySlice<UInt8>] = feed == .whole ? [input[...]] : input.indices.map { input[$0...$0] }
        for piece in pieces {
            parser.feed(piece)
            while let event = parser.next() { seen.append(event) }
        }
        #expect(seen.count == 1)
        guard case .request(let request)? = seen.first else {
            Issue.record("expected the CONNECT request, got \(seen)")
            return
        }
        #expect(request.method == .connect && request.target == "appleid.apple.com:443")
        #expect(!parser.hasPartialRequest)
        #expect(parser.takeTunnelBytes() == hello)
        #expect(parser.takeTunnelBytes() == [])
        #expect(parser.next() == nil)
    }

    @Test func connectTakesBracketedIPv6AndIgnoresAContentLength() {
        let got = outcomes("CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nContent-Length: 5\r\n\r\n", feed: .whole)
        #expect(got == [.request(Parsed("CONNECT", "[::1]:8443"))])
    }
}

/// Empty lines and bare CRs before and inside a head: bounded, and decided as soon as the bytes say so.
@Suite struct HTTPRequestParserLineEndingTests {
    static let request = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test(arguments: Feed.allCases)
    func upToEightEmptyLinesBeforeARequestAreIgnored(feed: Feed) {
        let input = String(repeating: "\r\n", count: 4) + String(repeating: "\n", count: 4) + Self.request
        #expect(outcomes(input, feed: feed) == [.request(Parsed("GET", "/a"))])
    }

    @Test(arguments: Feed.allCases)
    func aNinthEmptyLineIsA400(feed: Feed) {
        let error = parseError(String(repeating: "\r\n", count: 9) + Self.request, feed: feed)
        #expect(error?.status == .badRequest)
        #expect(error?.message.contains("8 empty lines") == true)
        // Nothing but empty lines: the ninth decides it, no request line needed.
        #expect(outcomes(String(repeating: "\r\n", count: 9), feed: feed) == [.error(400)])
    }

    @Test(arguments: Feed.allCases)
    func theCountStartsAgainForEachRequest(feed: Feed) {
        let input = String(repeating: "\r\n", count: 8) + Self.request + String(repeating: "\r\n", count: 8) + Self.request
        #expect(outcomes(input, feed: feed) == [.request(Parsed("GET", "/a")), .request(Parsed("GET", "/a"))])
    }

    @Test func anEmptyLineBeginsARequestForTheTimeouts() {
        var parser = HTTPRequestParser()
        #expect(!parser.hasPartialRequest)
        parser.feed(Array("\r\n".utf8))
        #expect(parser.next() == nil)
        #expect(parser.hasPartialRequest)   // the header-read timeout runs, not the idle one
        parser.feed(Array(Self.request.utf8))
        guard case .request? = parser.next() else { Issue.record("no request"); return }
        #expect(!parser.hasPartialRequest)
    }

    @Test(arguments: Feed.allCases, [
        "GET / HTTP/1.1\r\rHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\r",
        "\rX",
        "\r\r",
        "GET / HTTP/1.1\r\nHost: x\rY",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\rhello",
    ])
    func aCRNotFollowedByLFIsA400AtOnce(feed: Feed, input: String) {
        let error = parseError(input, feed: feed)
        #expect(error?.status == .badRequest, "\(input.debugDescription)")
        #expect(error?.errorCode == "invalid_line_ending", "\(input.debugDescription)")
    }

    /// Found by the fuzzer: a CR that is the last byte the header budget allows was a 431 when the
    /// bytes came one at a time and a 400 when they came together.
    @Test(arguments: Feed.allCases)
    func aCRAtTheHeaderBudgetIsDecidedByItsNextByteHoweverTheBytesArrive(feed: Feed) {
        let limits = HTTPLimits(maxHeaderBytes: 64, maxHeaderCount: 4, maxBodyBytes: 64)
        let first = "GET / HTTP/1.1\r\n"
        let filler = String(repeating: "a", count: 64 - first.utf8.count - 2 - 1)   // "X:" + filler + CR: the whole budget
        let bare = parseError(first + "X:" + filler + "\rL\r\n\r\n", feed: feed, limits: limits)
        #expect(bare?.errorCode == "invalid_line_ending")
        let long = parseError(first + "X:" + filler + "\r\n\r\n", feed: feed, limits: limits)
        #expect(long?.status.code == 431)
    }

    @Test func aCRAtTheEndOfWhatArrivedWaitsForTheNextByte() {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET / HTTP/1.1\r".utf8))
        #expect(parser.next() == nil)
        parser.feed(Array("\nHost: x\r\n\r".utf8))
        #expect(parser.next() == nil)
        parser.feed(Array("\n".utf8))
        guard case .request? = parser.next() else { Issue.record("no request"); return }
    }
}
