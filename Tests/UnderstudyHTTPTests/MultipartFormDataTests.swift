import Testing
@testable import UnderstudyHTTP

@Suite struct MultipartFormDataTests {
    static let body = Array("""
        --XyZ\r
        Content-Disposition: form-data; name="from"\r
        \r
        Ada <ada@example.com>\r
        --XyZ\r
        Content-Disposition: form-data; name="to"\r
        \r
        alice@example.com\r
        --XyZ\r
        Content-Disposition: form-data; name="to"\r
        \r
        bob@example.com\r
        --XyZ\r
        Content-Disposition: form-data; name="attachment"; filename="a \\"b\\".txt"\r
        Content-Type: text/plain\r
        \r
        line one\r
        --XyZ not a boundary\r
        \r
        --XyZ--\r
        epilogue
        """.utf8)

    @Test func splitsFieldsFilesAndRepeatedNames() throws {
        let form = try MultipartFormData(body: Self.body, boundary: "XyZ")
        #expect(form.fields.map(\.name) == ["from", "to", "to", "attachment"])
        #expect(form.first("from")?.text == "Ada <ada@example.com>")
        #expect(form.values("to").map(\.text) == ["alice@example.com", "bob@example.com"])
        let file = try #require(form.first("attachment"))
        #expect(file.filename == "a \"b\".txt" && file.contentType == "text/plain")
        // The content runs to the CRLF before the next real delimiter, lookalikes included.
        #expect(file.text == "line one\r\n--XyZ not a boundary\r\n")
    }

    @Test func readsTheBoundaryFromTheRequest() throws {
        let request = HTTPRequest(method: .post, target: "/x", headers: ["Content-Type": "multipart/form-data; boundary=\"XyZ\""], body: Self.body)
        #expect(try MultipartFormData(request: request).fields.count == 4)
        let json = HTTPRequest(method: .post, target: "/x", headers: ["Content-Type": "application/json"], body: [])
        #expect(throws: HTTPBodyError.self) { try MultipartFormData(request: json) }
    }

    @Test(arguments: [
        "no delimiter at all",
        "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nnever closed",
        "--XyZ\r\nContent-Type: text/plain\r\n\r\nno name\r\n--XyZ--",
        "--XyZ garbage\r\n",
        "--XyZ\r\n" + String(repeating: "X-Long: header\r\n", count: 1000) + "\r\n\r\n--XyZ--",
    ])
    func malformedBodiesAreClearErrors(_ text: String) {
        let error = #expect(throws: HTTPBodyError.self) { try MultipartFormData(body: Array(text.utf8), boundary: "XyZ") }
        #expect(error?.status == .badRequest)
        #expect(error?.errorCode == "invalid_form")
    }

    @Test func partsAreBounded() {
        var text = ""
        for i in 0...MultipartFormData.maximumParts { text += "--b\r\nContent-Disposition: form-data; name=\"f\(i)\"\r\n\r\nv\r\n" }
        text += "--b--\r\n"
        #expect(throws: HTTPBodyError.self) { try MultipartFormData(body: Array(text.utf8), boundary: "b") }
        #expect(throws: HTTPBodyError.self) { try MultipartFormData(body: [], boundary: String(repeating: "b", count: 71)) }
    }
}
