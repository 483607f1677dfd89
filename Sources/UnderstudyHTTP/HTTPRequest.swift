import UnderstudyJSON

/// A parsed request. Built by `HTTPRequestParser`, or directly in tests and handlers.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request-target exactly as received (origin-form `/a?b`, absolute-form `http://h/a`, or `*`).
    public var target: String
    /// The percent-decoded path without the query; "/" for an absolute-form target with no path.
    public var path: String
    /// The query, form-decoded (`+` is a space, invalid escapes kept as written), in order.
    public var query: [(name: String, value: String)]
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Whether the connection stays open after this request: HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool
    /// How the request reached the server (TLS, server name, peer, the host it was routed as),
    /// filled in by the server and by host routing.
    public var context = HTTPRequestContext()

    /// Parses `path` and `query` from `target`. A path with an invalid escape is kept as written
    /// (the parser rejects such requests with 400 before they get here).
    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = [:], body: [UInt8] = []) {
        let parts = RequestTargetParts(target)
        self.init(method: method, target: target, version: version, headers: headers, body: body,
                  path: URLEncoding.percentDecoded(parts.rawPath)
                      ?? URLEncoding.leniently(parts.rawPath, plusIsSpace: false),
                  query: parts.rawQuery.map { URLEncoding.formDecoded($0) } ?? [])
    }

    init(method: HTTPMethod, target: String, version: HTTPVersion, headers: HTTPHeaders, body: [UInt8],
         path: String, query: [(name: String, value: String)]) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.keepAlive = HTTPRequest.keepAlive(version: version, headers: headers)
    }

    /// The first query value named `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The body as JSON. Requires `Content-Type: application/json` or `application/<x>+json`
    /// (415 otherwise) and a valid JSON document (400 naming the byte offset otherwise).
    public func jsonBody() throws(HTTPBodyError) -> JSONValue {
        guard let type = mediaType, type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json")) else {
            throw .unsupportedMediaType(got: headers["Content-Type"], expected: "application/json")
        }
        do {
            return try JSONValue.parse(body)
        } catch {
            throw .invalidJSON(error.description)
        }
    }

    /// The body as `application/x-www-form-urlencoded` pairs (415 for another content type).
    /// Decoding is lenient, as browsers do: `+` is a space, invalid escapes stay as written.
    public func formBody() throws(HTTPBodyError) -> [(name: String, value: String)] {
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw .unsupportedMediaType(got: headers["Content-Type"], expected: "application/x-www-form-urlencoded")
        }
        return URLEncoding.formDecoded(body)
    }

    /// The first value named `name` of a form body, or nil (also when the body is not a form).
    public func formValue(_ name: String) -> String? {
        (try? formBody())?.first { $0.name == name }?.value
    }

    /// The media type of `Content-Type`, lowercased, without parameters (`application/json`).
    public var mediaType: String? {
        guard let value = headers["Content-Type"] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(type.trimmingOWS()).lowercased()
    }

    static func keepAlive(version: HTTPVersion, headers: HTTPHeaders) -> Bool {
        var close = false
        var keepAlive = false
        for token in headers.tokens(for: "Connection") {
            if token.equalsLowercased("close") { close = true }
            if token.equalsLowercased("keep-alive") { keepAlive = true }
        }
        if close { return false }
        return version == .http1_0 ? keepAlive : true
    }
}
