import Testing
@testable import UnderstudyHTTP

/// Each limit exactly at the boundary (accepted) and one over (rejected), fed whole and byte by byte.
@Suite struct HTTPLimitsTests {
    struct LimitCase: CustomStringConvertible, Sendable {
        var name: String
        var limits: HTTPLimits
        var input: String
        var expected: [Outcome]
        var description: String { name }
    }

    /// A GET whose request line and headers, with the blank line, are exactly `size` bytes.
    static func get(headBytes size: Int) -> String {
        let prefix = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: "
        let suffix = "\r\n\r\n"
        return prefix + String(repeating: "p", count: size - prefix.utf8.count - suffix.utf8.count) + suffix
    }

    static func get(headerCount: Int) -> String {
        "GET / HTTP/1.1\r\nHost: x\r\n" + (1..<headerCount).map { "X-\($0): v\r\n" }.joined() + "\r\n"
    }

    static func post(contentLength: Int, bodyBytes: Int) -> String {
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(contentLength)\r\n\r\n" + String(repeating: "b", count: bodyBytes)
    }

    static let chunkedHead = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"

    /// A chunked POST whose trailer section (fields and the blank line) is exactly `size` bytes.
    static func chunked(trailerBytes size: Int) -> String {
        let prefix = "X-T: "
        let suffix = "\r\n\r\n"
        return chunkedHead + "0\r\n" + prefix + String(repeating: "t", count: size - prefix.utf8.count - suffix.utf8.count) + suffix
    }

    static func chunked(trailerCount: Int) -> String {
        chunkedHead + "0\r\n" + (0..<trailerCount).map { "X-\($0): v\r\n" }.joined() + "\r\n"
    }

    static let cases: [LimitCase] = [
        LimitCase(name: "default head size at 16384", limits: HTTPLimits(), input: get(headBytes: 16384),
                  expected: [.request(Parsed("GET", "/"))]),
        LimitCase(name: "default head size at 16385 -> 431", limits: HTTPLimits(), input: get(headBytes: 16385),
                  expected: [.error(431)]),
        LimitCase(name: "small head size at limit", limits: HTTPLimits(maxHeaderBytes: 64), input: get(headBytes: 64),
                  expected: [.request(Parsed("GET", "/"))]),
        LimitCase(name: "small head size one over -> 431", limits: HTTPLimits(maxHeaderBytes: 64), input: get(headBytes: 65),
                  expected: [.error(431)]),
        LimitCase(name: "request line alone over the limit, not yet ended -> 431",
                  limits: HTTPLimits(maxHeaderBytes: 64), input: "GET /" + String(repeating: "a", count: 60),
                  expected: [.error(431)]),
        LimitCase(name: "leading empty lines do not count",
                  limits: HTTPLimits(maxHeaderBytes: 64), input: "\r\n\r\n" + get(headBytes: 64),
                  expected: [.request(Parsed("GET", "/"))]),
        LimitCase(name: "header count at limit", limits: HTTPLimits(maxHeaderCount: 3), input: get(headerCount: 3),
                  expected: [.request(Parsed("GET", "/"))]),
        LimitCase(name: "header count one over -> 431", limits: HTTPLimits(maxHeaderCount: 3), input: get(headerCount: 4),
                  expected: [.error(431)]),
        LimitCase(name: "default header count at 100", limits: HTTPLimits(), input: get(headerCount: 100),
                  expected: [.request(Parsed("GET", "/"))]),
        LimitCase(name: "default header count at 101 -> 431", limits: HTTPLimits(), input: get(headerCount: 101),
                  expected: [.error(431)]),
        LimitCase(name: "Content-Length at limit", limits: HTTPLimits(maxBodyBytes: 10),
                  input: post(contentLength: 10, bodyBytes: 10),
                  expected: [.request(Parsed("POST", "/", body: "bbbbbbbbbb"))]),
        LimitCase(name: "Content-Length one over -> 413 at the header, before any body byte",
                  limits: HTTPLimits(maxBodyBytes: 10), input: post(contentLength: 11, bodyBytes: 0),
                  expected: [.error(413)]),
        LimitCase(name: "default body limit one over -> 413", limits: HTTPLimits(),
                  input: post(contentLength: 1024 * 1024 + 1, bodyBytes: 0), expected: [.error(413)]),
        LimitCase(name: "chunked total at limit", limits: HTTPLimits(maxBodyBytes: 10),
                  input: chunkedHead + "5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n",
                  expected: [.request(Parsed("POST", "/", body: "helloworld"))]),
        LimitCase(name: "chunked total one over -> 413 at the chunk size, before its data",
                  limits: HTTPLimits(maxBodyBytes: 10), input: chunkedHead + "5\r\nhello\r\n6\r\n",
                  expected: [.error(413)]),
        LimitCase(name: "trailer section at limit", limits: HTTPLimits(maxHeaderBytes: 64), input: chunked(trailerBytes: 64),
                  expected: [.request(Parsed("POST", "/"))]),
        LimitCase(name: "trailer section one over -> 431", limits: HTTPLimits(maxHeaderBytes: 64),
                  input: chunked(trailerBytes: 65), expected: [.error(431)]),
        LimitCase(name: "trailer count at limit", limits: HTTPLimits(maxHeaderCount: 3), input: chunked(trailerCount: 3),
                  expected: [.request(Parsed("POST", "/"))]),
        LimitCase(name: "trailer count one over -> 431", limits: HTTPLimits(maxHeaderCount: 3),
                  input: chunked(trailerCount: 4), expected: [.error(431)]),
        LimitCase(name: "chunk size line over 4096 bytes -> 400", limits: HTTPLimits(),
                  input: chunkedHead + "1;" + String(repeating: "e", count: 4096) + "\r\n", expected: [.error(400)]),
    ]

    @Test(arguments: cases, Feed.allCases)
    func limit(_ test: LimitCase, feed: Feed) {
        #expect(outcomes(test.input, feed: feed, limits: test.limits) == test.expected)
    }

    @Test func inputsHaveTheSizesTheyClaim() {
        #expect(HTTPLimitsTests.get(headBytes: 64).utf8.count == 64)
        #expect(HTTPLimitsTests.chunked(trailerBytes: 64).utf8.count == HTTPLimitsTests.chunkedHead.utf8.count + 3 + 64)
    }

    @Test func bodyLimitMessageNamesTheLimit() throws {
        let error = try #require(parseError(HTTPLimitsTests.post(contentLength: 11, bodyBytes: 0), feed: .whole,
                                            limits: HTTPLimits(maxBodyBytes: 10)))
        #expect(error.message == "request body exceeds 10 bytes; send a smaller body")
        #expect(error.status == .payloadTooLarge)
    }

    /// A large body fed one byte at a time stays linear (this would take minutes if it rescanned).
    @Test func largeBodyByteByByte() {
        let body = String(repeating: "z", count: 200_000)
        let input = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n" + body
        #expect(outcomes(input, feed: .oneByteAtATime) == [.request(Parsed("POST", "/", body: body))])
        let chunked = HTTPLimitsTests.chunkedHead + "30d40\r\n" + body + "\r\n0\r\n\r\n"
        #expect(outcomes(chunked, feed: .oneByteAtATime) == [.request(Parsed("POST", "/", body: body))])
    }
}
