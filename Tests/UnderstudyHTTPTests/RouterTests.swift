import Testing
import UnderstudyJSON
@testable import UnderstudyHTTP

@Suite struct RouterTests {
    /// A handler that answers "<route name> <parameters>".
    static func named(_ name: String, _ parameterNames: [String] = []) -> HTTPHandler {
        { _, parameters in
            let values = parameterNames.map { "\($0)=\(parameters[$0] ?? "nil")" }
            return .response(.text(([name] + values).joined(separator: " ")))
        }
    }

    static let router: FrozenRouter = {
        var router = Router()
        router.add(.get, "/", named("root"))
        router.add(.get, "/apple/auth/keys", named("keys"))
        router.add(.get, "/api/messages", named("list"))
        router.add(.delete, "/api/messages", named("delete-all"))
        router.add(.get, "/api/messages/:id", named("message", ["id"]))
        router.add(.delete, "/api/messages/:id", named("delete", ["id"]))
        router.add(.get, "/api/messages/latest", named("latest"))
        router.add(.post, "/api/messages/search", named("search"))
        router.add(.get, "/api/messages/:id/parts/:n", named("part", ["id", "n"]))
        router.add(.get, "/users/:name", named("user", ["name"]))
        router.add(.get, "/slash/", named("with-slash"))
        router.add(.get, "/explicit", named("explicit-get"))
        router.add(.head, "/explicit", named("explicit-head"))
        return router.freeze()
    }()

    static func reply(_ method: HTTPMethod, _ target: String) -> HTTPResponse {
        switch router.respond(to: HTTPRequest(method: method, target: target, headers: ["Host": "x"])) {
        case .response(let response): response
        default: HTTPResponse(status: .internalServerError)
        }
    }

    struct RouteCase: CustomStringConvertible, Sendable {
        var method: HTTPMethod
        var target: String
        var expected: String
        var description: String { "\(method) \(target)" }
    }

    static let matches: [RouteCase] = [
        RouteCase(method: .get, target: "/", expected: "root"),
        RouteCase(method: .get, target: "/apple/auth/keys", expected: "keys"),
        RouteCase(method: .get, target: "/apple/auth/keys?x=1", expected: "keys"),
        RouteCase(method: .get, target: "http://localhost:8080/apple/auth/keys", expected: "keys"),
        RouteCase(method: .get, target: "/api/messages/42", expected: "message id=42"),
        RouteCase(method: .get, target: "/api/messages/latest", expected: "latest"),         // literal beats parameter
        RouteCase(method: .delete, target: "/api/messages/latest", expected: "delete id=latest"), // literal lacks DELETE
        RouteCase(method: .get, target: "/api/messages/search", expected: "message id=search"),  // literal lacks GET
        RouteCase(method: .get, target: "/api/messages/7/parts/2", expected: "part id=7 n=2"),
        RouteCase(method: .get, target: "/users/a%2Fb", expected: "user name=a/b"),    // %2F stays inside the value
        RouteCase(method: .get, target: "/users/caf%C3%A9%20au%20lait", expected: "user name=café au lait"),
        RouteCase(method: .get, target: "/users/a+b", expected: "user name=a+b"),       // + is literal in paths
        RouteCase(method: .head, target: "/apple/auth/keys", expected: "keys"),         // HEAD falls back to GET
        RouteCase(method: .head, target: "/users/x", expected: "user name=x"),
        RouteCase(method: .head, target: "/explicit", expected: "explicit-head"),       // an explicit HEAD route wins
        RouteCase(method: .get, target: "/slash/", expected: "with-slash"),
    ]

    @Test(arguments: matches)
    func routes(_ test: RouteCase) {
        let response = RouterTests.reply(test.method, test.target)
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == test.expected)
    }

    static let notFound: [RouteCase] = [
        RouteCase(method: .get, target: "/nope", expected: ""),
        RouteCase(method: .get, target: "/apple/auth", expected: ""),              // a prefix is not a route
        RouteCase(method: .get, target: "/apple/auth/keys/", expected: ""),        // trailing slash is another path
        RouteCase(method: .get, target: "/slash", expected: ""),
        RouteCase(method: .get, target: "/users/", expected: ""),                  // parameters never match empty
        RouteCase(method: .get, target: "//apple/auth/keys", expected: ""),
        RouteCase(method: .get, target: "/api/messages/1/parts", expected: ""),
        RouteCase(method: .options, target: "*", expected: ""),
    ]

    @Test(arguments: notFound)
    func unknownPathIs404Problem(_ test: RouteCase) throws {
        let response = RouterTests.reply(test.method, test.target)
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"] == "application/json")
        let body = try JSONValue.parse(response.body)
        #expect(body["error"]?.stringValue == "not_found")
        #expect(body["message"]?.stringValue?.isEmpty == false)
        #expect(!response.headers.contains("Allow"))
    }

    @Test(arguments: [
        (HTTPMethod.post, "/apple/auth/keys", "GET, HEAD"),
        (HTTPMethod.put, "/api/messages", "DELETE, GET, HEAD"),
        (HTTPMethod.post, "/api/messages/42", "DELETE, GET, HEAD"),
        (HTTPMethod.put, "/api/messages/search", "DELETE, GET, HEAD, POST"),   // literal and parameter routes
        (HTTPMethod.delete, "/explicit", "GET, HEAD"),
    ])
    func knownPathWithOtherMethodIs405WithAllow(method: HTTPMethod, target: String, allow: String) throws {
        let response = RouterTests.reply(method, target)
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == allow)
        let body = try JSONValue.parse(response.body)
        #expect(body["error"]?.stringValue == "method_not_allowed")
        #expect(body["message"]?.stringValue?.contains(allow) == true)
    }

    /// HEAD through the GET route: the serializer sends the GET's Content-Length and no body.
    @Test func headFallbackSerializesWithoutBody() {
        let response = RouterTests.reply(.head, "/apple/auth/keys")
        let bytes = HTTPSerializer.serialize(response, requestMethod: .head, keepAlive: true)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasSuffix("Content-Length: 4\r\n\r\n"))
        #expect(!text.contains("keys"))
    }

    /// A prefix's problem responder writes the router's own 404 and 405 under it, the longest prefix
    /// winning; other paths keep the default problem shape.
    @Test func problemResponderPerPrefix() throws {
        var router = Router()
        router.add(.get, "/google/tokeninfo", RouterTests.named("tokeninfo"))
        router.add(.get, "/api/messages", RouterTests.named("list"))
        router.setProblemResponder(under: "/google") { status, error, message in
            .json(["error": .string(error), "error_description": .string(message)], status: status)
        }
        router.setProblemResponder(under: "/google/deep") { status, _, _ in .text("deep", status: status) }
        let frozen = router.freeze()
        func reply(_ method: HTTPMethod, _ target: String) -> HTTPResponse {
            guard case .response(let r) = frozen.respond(to: HTTPRequest(method: method, target: target)) else {
                return HTTPResponse(status: .internalServerError)
            }
            return r
        }
        for (method, target, status) in [(HTTPMethod.get, "/google/nowhere", HTTPStatus.notFound),
                                          (.get, "/google", .notFound), (.delete, "/google/tokeninfo", .methodNotAllowed)] {
            let r = reply(method, target)
            #expect(r.status == status, "\(target)")
            let body = try JSONValue.parse(r.body)
            #expect(body.objectValue?.keys.sorted() == ["error", "error_description"], "\(target)")
            #expect(body["error_description"]?.stringValue?.isEmpty == false)
        }
        #expect(reply(.delete, "/google/tokeninfo").headers["Allow"] == "GET, HEAD")
        #expect(String(decoding: reply(.get, "/google/deep/x").body, as: UTF8.self) == "deep")
        for target in ["/googlex", "/api/nowhere", "/nowhere"] {
            let body = try JSONValue.parse(reply(.get, target).body)
            #expect(body.objectValue?.keys.sorted() == ["error", "message"], "\(target)")
        }
    }

    @Test func routesAreListedInRegistrationOrder() {
        var router = Router()
        router.add(.get, "/a", RouterTests.named("a"))
        router.add(.post, "/b/:id", RouterTests.named("b"))
        #expect(router.routes.map { "\($0.method) \($0.pattern)" } == ["GET /a", "POST /b/:id"])
    }

    @Test func differentParameterNamesAtTheSamePosition() {
        var router = Router()
        router.add(.get, "/x/:id", RouterTests.named("by-id", ["id"]))
        router.add(.get, "/x/:name/detail", RouterTests.named("detail", ["name"]))
        let frozen = router.freeze()
        for (target, expected) in [("/x/1", "by-id id=1"), ("/x/bob/detail", "detail name=bob")] {
            guard case .response(let response) = frozen.respond(to: HTTPRequest(method: .get, target: target)) else {
                Issue.record("no response for \(target)")
                continue
            }
            #expect(String(decoding: response.body, as: UTF8.self) == expected)
        }
    }

    /// The parser's request reaches the same route as a hand-built one.
    @Test(arguments: Feed.allCases)
    func parsedRequestIsRouted(feed: Feed) throws {
        let request = try #require(requests("GET /api/messages/a%20b/parts/3?x=y HTTP/1.1\r\nHost: x\r\n\r\n", feed: feed).first)
        guard case .response(let response) = RouterTests.router.respond(to: request) else {
            Issue.record("expected a response")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self) == "part id=a b n=3")
    }
}
