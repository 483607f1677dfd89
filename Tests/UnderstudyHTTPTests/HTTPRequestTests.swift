import Testing
import UnderstudyJSON
@testable import UnderstudyHTTP

@Suite struct HTTPRequestTests {
    static func post(_ contentType: String?, _ body: String) -> HTTPRequest {
        var headers: HTTPHeaders = ["Host": "x"]
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        return HTTPRequest(method: .post, target: "/", headers: headers, body: Array(body.utf8))
    }

    @Test(arguments: ["application/json", "application/json; charset=utf-8", "Application/JSON",
                      "application/merge-patch+json", "application/problem+json ; q=1"])
    func jsonBodyAcceptsJSONMediaTypes(contentType: String) throws {
        let value = try HTTPRequestTests.post(contentType, #"{"a": [1, "two", null]}"#).jsonBody()
        #expect(value == ["a": [1, "two", nil]])
    }

    @Test(arguments: [nil, "text/plain", "application/x-www-form-urlencoded", "application/jsonp", "json"])
    func jsonBodyRejectsOtherMediaTypesWith415(contentType: String?) {
        #expect {
            try HTTPRequestTests.post(contentType, "{}").jsonBody()
        } throws: { error in
            guard let error = error as? HTTPBodyError else { return false }
            return error.status == .unsupportedMediaType && error.message.contains("application/json")
                && error.response.status.code == 415
        }
    }

    @Test(arguments: [("{\"a\": }", 6), ("", 0), ("[1, 2", 5), ("{} x", 3)])
    func jsonBodyRejectsInvalidJSONWith400NamingThePosition(body: String, offset: Int) throws {
        do {
            _ = try HTTPRequestTests.post("application/json", body).jsonBody()
            Issue.record("accepted invalid JSON \(body)")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.message.contains("at byte \(offset)"), "\(error.message)")
            let problem = try JSONValue.parse(error.response.body)
            #expect(problem["error"]?.stringValue == "invalid_json")
        }
    }

    @Test func formBody() throws {
        let request = HTTPRequestTests.post("application/x-www-form-urlencoded; charset=UTF-8",
                                            "grant_type=authorization_code&code=a%2Bb+c&redirect_uri=https%3A%2F%2Fapp%2Fcb&x")
        let form = try request.formBody()
        #expect(form.map { "\($0.name)=\($0.value)" }
            == ["grant_type=authorization_code", "code=a+b c", "redirect_uri=https://app/cb", "x="])
        #expect(request.formValue("code") == "a+b c")
        #expect(request.formValue("missing") == nil)
    }

    @Test func formBodyRejectsOtherMediaTypesWith415() {
        #expect(throws: HTTPBodyError.self) { try HTTPRequestTests.post("application/json", "a=b").formBody() }
        #expect(HTTPRequestTests.post(nil, "a=b").formValue("a") == nil)
    }

    @Test(arguments: [
        ("/a/b?c=d", "/a/b", ["c=d"]),
        ("/a%20b", "/a b", []),
        ("/bad%zz", "/bad%zz", []),                  // built by hand: kept as written
        ("http://h:1/p?q", "/p", ["q="]),
        ("http://h", "/", []),
        ("*", "*", []),
        ("/?a=1&a=2&b", "/", ["a=1", "a=2", "b="]),
    ])
    func initParsesTarget(target: String, path: String, query: [String]) {
        let request = HTTPRequest(method: .get, target: target)
        #expect(request.path == path)
        #expect(request.query.map { "\($0.name)=\($0.value)" } == query)
    }

    @Test func keepAliveFromVersionAndConnection() {
        #expect(HTTPRequest(method: .get, target: "/").keepAlive)
        #expect(!HTTPRequest(method: .get, target: "/", headers: ["Connection": "Close"]).keepAlive)
        #expect(!HTTPRequest(method: .get, target: "/", version: .http1_0).keepAlive)
        #expect(HTTPRequest(method: .get, target: "/", version: .http1_0, headers: ["Connection": "keep-alive"]).keepAlive)
        #expect(!HTTPRequest(method: .get, target: "/", version: .http1_0,
                             headers: ["Connection": "keep-alive, close"]).keepAlive)
    }

    @Test func headersAreOrderedAndCaseInsensitive() {
        var headers: HTTPHeaders = ["Set-Cookie": "a=1", "Content-Type": "text/plain"]
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["SET-COOKIE"] == "a=1")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(headers.contains("content-type"))
        #expect(!headers.contains("content-typ"))
        headers.replaceOrAdd(name: "SET-cookie", value: "c=3")
        #expect(headers.values(for: "Set-Cookie") == ["c=3"])
        #expect(headers.map(\.name) == ["Set-Cookie", "Content-Type"])
        headers.replaceOrAdd(name: "X-New", value: "1")
        headers.remove(name: "content-TYPE")
        #expect(headers.map { "\($0.name): \($0.value)" } == ["Set-Cookie: c=3", "X-New: 1"])
        #expect(HTTPHeaders([("A", "1"), ("a", "2")]).values(for: "A") == ["1", "2"])
        // Case folding is ASCII letters only: "[" (0x5B) and "{" (0x7B) differ by 0x20 but are not letters.
        #expect(!HTTPHeaders([("X[", "1")]).contains("X{"))
    }

    @Test func jsonAndProblemResponses() throws {
        let response = HTTPResponse.json(["ok": true], status: .created)
        #expect(response.status == .created)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.body == Array(#"{"ok":true}"#.utf8))
        let custom = HTTPResponse.json([], headers: ["Content-Type": "application/jwk-set+json"])
        #expect(custom.headers.values(for: "Content-Type") == ["application/jwk-set+json"])
        let problem = HTTPResponse.problem(.badRequest, error: "invalid_request", message: "say \"what\"; then fix it")
        #expect(try JSONValue.parse(problem.body) == ["error": "invalid_request", "message": "say \"what\"; then fix it"])
    }
}
