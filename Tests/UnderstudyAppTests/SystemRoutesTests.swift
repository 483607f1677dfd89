import Testing
import UnderstudyJSON
@testable import UnderstudyApp

/// `/api/info` and the web UI as the running server answers them.
@Suite(.serialized) struct SystemRoutesTests {
    @Test func infoNamesTheBoundAddressesAndIdentities() throws {
        let (app, http, _) = try MailSinkTests.start()
        defer { app.shutdown() }
        let info = try http.get("/api/info")
        #expect(info.status == 200)
        #expect(info.json?["smtp"]?.stringValue == app.smtpAddress)
        #expect(info.json?["http"]?.arrayValue?.first?.stringValue == app.httpAddresses[0])
        #expect(info.json?["version"]?.stringValue == UnderstudyCLI.version)
        #expect(info.json?["google"]?["webClientId"]?.stringValue == app.configuration.providers.google.webClientID)
        #expect(info.json?["identities"]?.arrayValue?.count == app.configuration.providers.identities.count)
        #expect(info.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func theUIIsServedAtTheRootWithItsPolicy() throws {
        let (app, http, smtp) = try MailSinkTests.start()
        defer { app.shutdown() }
        let page = try http.get("/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        let csp = page.header("Content-Security-Policy") ?? ""
        #expect(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"), "\(csp)")
        #expect(page.text.contains("/ui/app.js"))
        #expect(try http.get("/ui/app.js").status == 200)
        // The message view frames the HTML part: `frame=1` lets this origin frame it, sandboxed.
        _ = try smtp.send(from: "a@example.com", to: ["web@example.com"], message: Array((
            "To: web@example.com\r\nSubject: Framed\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n"
            + "--b\r\nContent-Type: text/plain\r\n\r\nYour code is 482913\r\n"
            + "--b\r\nContent-Type: text/html\r\n\r\n<p>Your code is <b>482913</b></p><script>alert(1)</script>\r\n--b--\r\n").utf8))
        let id = try #require(http.get("/api/messages?to=web@example.com").json?["messages"]?[0]?["id"]?.stringValue)
        let detail = try http.get("/api/messages/\(id)").json
        let parts = detail?["parts"]?.arrayValue ?? []
        #expect(parts.map { $0["type"]?.stringValue } == ["text/plain", "text/html"])
        let htmlPart = parts[1]["part"]?.stringValue ?? "?"
        let framed = try http.get("/api/messages/\(id)/parts/\(htmlPart)?view=1&frame=1")
        let policy = framed.header("Content-Security-Policy") ?? ""
        #expect(policy.hasPrefix("sandbox") && policy.contains("frame-ancestors 'self'") && !policy.contains("script-src"), "\(policy)")
        let plain = try http.get("/api/messages/\(id)/parts/\(htmlPart)?view=1")
        #expect(plain.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        #expect(framed.header("Access-Control-Allow-Origin") == nil)
    }
}
