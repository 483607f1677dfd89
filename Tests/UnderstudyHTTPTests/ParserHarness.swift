@testable import UnderstudyHTTP

/// How a test feeds its bytes to the parser; every parser test runs in each mode.
enum Feed: String, CaseIterable, CustomStringConvertible, Sendable {
    case whole
    case oneByteAtATime

    var description: String { rawValue }
}

/// A comparable summary of one parser event.
enum Outcome: Equatable, CustomStringConvertible {
    case expectContinue
    case request(Parsed)
    case error(Int)

    var description: String {
        switch self {
        case .expectContinue: "100-continue"
        case .request(let parsed): "request(\(parsed))"
        case .error(let code): "error(\(code))"
        }
    }
}

struct Parsed: Equatable, CustomStringConvertible {
    var method: String
    var path: String
    var query: [String] = []
    var body: String = ""
    var keepAlive: Bool = true
    var version: HTTPVersion = .http1_1

    init(_ method: String, _ path: String, query: [String] = [], body: String = "", keepAlive: Bool = true,
         version: HTTPVersion = .http1_1) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.keepAlive = keepAlive
        self.version = version
    }

    init(_ request: HTTPRequest) {
        method = request.method.rawValue
        path = request.path
        query = request.query.map { "\($0.name)=\($0.value)" }
        body = String(decoding: request.body, as: UTF8.self)
        keepAlive = request.keepAlive
        version = request.version
    }

    var description: String { "\(method) \(path) \(query) body=\(body.debugDescription) keepAlive=\(keepAlive) \(version)" }
}

/// Everything the parser produces for `input`, draining `next()` after each feed, stopping at an error.
func events(_ input: [UInt8], feed: Feed, limits: HTTPLimits = HTTPLimits()) -> [HTTPParserEvent] {
    var parser = HTTPRequestParser(limits: limits)
    var result: [HTTPParserEvent] = []
    let pieces: [ArraySlice<UInt8>] = switch feed {
    case .whole: [input[...]]
    case .oneByteAtATime: input.indices.map { input[$0...$0] }
    }
    for piece in pieces {
        parser.feed(piece)
        while let event = parser.next() {
            result.append(event)
            if case .error = event { return result }
        }
    }
    return result
}

func outcomes(_ input: String, feed: Feed, limits: HTTPLimits = HTTPLimits()) -> [Outcome] {
    outcomes(Array(input.utf8), feed: feed, limits: limits)
}

func outcomes(_ input: [UInt8], feed: Feed, limits: HTTPLimits = HTTPLimits()) -> [Outcome] {
    events(input, feed: feed, limits: limits).map { event in
        switch event {
        case .expectContinue: .expectContinue
        case .request(let request): .request(Parsed(request))
        case .error(let error): .error(error.status.code)
        }
    }
}

func requests(_ input: String, feed: Feed) -> [HTTPRequest] {
    events(Array(input.utf8), feed: feed).compactMap { event in
        if case .request(let request) = event { return request }
        return nil
    }
}

func parseError(_ input: String, feed: Feed, limits: HTTPLimits = HTTPLimits()) -> HTTPParseError? {
    for event in events(Array(input.utf8), feed: feed, limits: limits) {
        if case .error(let error) = event { return error }
    }
    return nil
}
