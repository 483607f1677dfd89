import Testing
@testable import UnderstudyStore
import UnderstudyHTTP
import UnderstudyJSON
import UnderstudyMIME
@testable import UnderstudyMailpit

@Suite struct MailpitRoutesTests {
    static let welcome = """
        From: "Ada Sender" <ada@example.com>
        To: "Alice" <alice@example.com>
        Cc: carol@example.com
        Subject: Your code is 123456
        Message-ID: <welcome-1@example.com>
        X-Tags: Signup, otp
        MIME-Version: 1.0
        Content-Type: multipart/mixed; boundary="b"

        --b
        Content-Type: text/plain

        Your verification code is 123456. Or open https://app.example.com/verify?token=abc
        --b
        Content-Type: text/html; charset=utf-8
        Content-Disposition: attachment; filename="page.html"

        <script>alert(1)</script>
        --b
        Content-Type: image/png
        Content-Disposition: attachment; filename="logo.png"

        PNGDATA
        --b--

        """

    static let reset = """
        From: robot@example.com
        To: bob@example.com
        Subject: Reset your password
        Message-ID: <reset-1@example.com>

        Reset it here: https://app.example.com/reset?token=xyz

        """

    @Test func listsMessagesInMailpitsShape() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let first = try h.deliver(Self.welcome, to: ["alice@example.com", "carol@example.com", "hidden@example.com"])
        let second = try h.deliver(Self.reset, to: ["bob@example.com"])
        let list = h.request(.get, "/api/v1/messages")
        #expect(list.status == 200)
        let json = try #require(list.json)
        #expect(json["total"] == 2 && json["unread"] == 2 && json["messages_count"] == 2 && json["start"] == 0 && json["count"] == 2)
        #expect(json["tags"] == ["otp", "Signup"])
        let messages = try #require(json["messages"]?.arrayValue)
        #expect(messages.map { $0["ID"]?.stringValue } == [second, first])
        let m = messages[1]
        #expect(m["MessageID"] == "welcome-1@example.com")
        #expect(m["From"] == ["Name": "Ada Sender", "Address": "ada@example.com"])
        #expect(m["To"] == [["Name": "", "Address": "alice@example.com"]])
        #expect(m["Cc"] == [["Name": "", "Address": "carol@example.com"]])
        #expect(m["Bcc"] == [["Name": "", "Address": "hidden@example.com"]])
        #expect(m["Subject"] == "Your code is 123456" && m["Read"] == false && m["Attachments"] == 2)
        #expect(m["Tags"] == ["Signup", "otp"] && m["Codes"] == ["123456"] && m["Source"] == "smtp")
        #expect(m["Created"]?.stringValue?.hasPrefix("2026-12-03T00:00:00") == true)
        for key in ["ReplyTo", "Size", "Snippet", "Username"] { #expect(m[key] != nil, "\(key)") }

        let paged = try #require(h.request(.get, "/api/v1/messages?start=1&limit=1").json)
        #expect(paged["messages"]?.arrayValue?.map { $0["ID"]?.stringValue } == [first])
        #expect(paged["start"] == 1 && paged["messages_count"] == 2)
        #expect(h.request(.get, "/api/v1/messages?limit=abc").status == 400)
        #expect(h.request(.get, "/api/v1/messages?start=-1").status == 400)
        #expect(h.request(.get, "/api/v1/messages?limit=0").json?["count"] == 2)
        #expect(h.request(.get, "/api/v1/messages?limit=99999").json?["count"] == 2)
    }

    @Test func aMessageItsHeadersRawAndPartsAndReadState() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let id = try h.deliver(Self.welcome, to: ["alice@example.com", "hidden@example.com"])
        let detail = h.request(.get, "/api/v1/message/\(id)")
        #expect(detail.status == 200)
        let m = try #require(detail.json)
        #expect(m["ID"]?.stringValue == id && m["From"]?["Name"] == "Ada Sender" && m["To"] == [["Name": "Alice", "Address": "alice@example.com"]])
        #expect(m["Bcc"] == [["Name": "", "Address": "hidden@example.com"]] && m["ReturnPath"] == "sender@example.com")
        #expect(m["Text"]?.stringValue?.contains("123456") == true && m["Codes"] == ["123456"])
        #expect(m["Links"]?.arrayValue?.first?["url"] == "https://app.example.com/verify?token=abc")
        #expect(m["Attachments"]?.arrayValue?.map { $0["FileName"]?.stringValue } == ["page.html", "logo.png"])
        #expect(m["Attachments"]?[1]?["PartID"]?.stringValue != nil && m["Inline"] == [])
        for key in ["MessageID", "Cc", "ReplyTo", "Subject", "ListUnsubscribe", "Date", "Tags", "HTML", "Size"] { #expect(m[key] != nil, "\(key)") }
        // Opening it marked it read.
        #expect(h.request(.get, "/api/v1/messages").json?["unread"] == 0)
        #expect(h.request(.put, "/api/v1/messages", json: ["IDs": [.string(id)], "Read": false]).text == "ok")
        #expect(h.request(.get, "/api/v1/messages").json?["messages"]?[0]?["Read"] == false)
        #expect(h.request(.put, "/api/v1/messages", json: ["Read": true]).status == 200)
        #expect(h.request(.get, "/api/v1/messages").json?["unread"] == 0)
        // mailpit-api-client sends a urlencoded form.
        #expect(h.request(.put, "/api/v1/messages", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                          body: Array("ids=\(id)&Read=False".utf8)).status == 200)
        #expect(h.request(.get, "/api/v1/messages").json?["unread"] == 1)
        h.request(.put, "/api/v1/messages", json: ["Read": true])
        #expect(h.request(.get, "/api/v1/messages").json?["unread"] == 0)

        // By search: every unread match is marked, though marking changes what matches.
        for _ in 0..<3 { _ = try h.deliver(Self.reset, to: ["bob@example.com"]) }
        #expect(h.request(.get, "/api/v1/messages").json?["unread"] == 3)
        #expect(h.request(.put, "/api/v1/messages", json: ["Search": "is:unread", "Read": true]).status == 200)
        #expect(h.request(.get, "/api/v1/messages").json?["unread"] == 0)
        #expect(h.request(.delete, "/api/v1/search?query=to:bob").status == 200)

        #expect(h.request(.get, "/api/v1/message/latest").json?["ID"]?.stringValue == id)
        #expect(h.request(.get, "/api/v1/message/latest?query=subject:nothing").status == 404)
        #expect(h.request(.get, "/api/v1/message/01JDZZZZZZZZZZZZZZZZZZZZZZ").status == 404)
        #expect(h.request(.get, "/api/v1/message/not-an-id").status == 404)

        let headers = try #require(h.request(.get, "/api/v1/message/\(id)/headers").json?.objectValue)
        #expect(headers.keys == headers.keys.sorted())
        #expect(headers["Subject"] == ["Your code is 123456"] && headers["Message-Id"] == ["<welcome-1@example.com>"])
        #expect(headers["Mime-Version"] == ["1.0"] && headers["X-Tags"] == ["Signup, otp"])
        let raw = h.request(.get, "/api/v1/message/\(id)/raw")
        #expect(raw.header("Content-Type") == "text/plain; charset=utf-8" && raw.text.hasPrefix("From: \"Ada Sender\""))

        let parts = try #require(m["Attachments"]?.arrayValue)
        let html = h.request(.get, "/api/v1/message/\(id)/part/\(parts[0]["PartID"]!.stringValue!)")
        #expect(html.status == 200 && html.text.contains("<script>"))
        #expect(html.header("Content-Security-Policy")?.hasPrefix("sandbox;") == true && html.header("X-Content-Type-Options") == "nosniff")
        #expect(html.header("Content-Disposition")?.hasPrefix("attachment") == true)
        let png = h.request(.get, "/api/v1/message/\(id)/part/\(parts[1]["PartID"]!.stringValue!)")
        #expect(png.header("Content-Type") == "image/png" && png.text.hasPrefix("PNGDATA"))
        #expect(h.request(.get, "/api/v1/message/\(id)/part/9").status == 404)
        #expect(h.request(.get, "/api/v1/message/\(id)/part/2/thumb").status == 404)

        let text = h.request(.get, "/view/\(id).txt")
        #expect(text.status == 200 && text.text.contains("123456") && text.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(h.request(.get, "/view/latest.txt").text == text.text)
        #expect(h.request(.get, "/view/\(id).html").status == 404)  // no HTML body (the HTML part is an attachment)
        #expect(h.request(.get, "/view/\(id).pdf").status == 404)
    }

    @Test func searchesWithMailpitsSyntaxAndDeletesBySearch() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let welcome = try h.deliver(Self.welcome, to: ["alice@example.com"])
        let reset = try h.deliver(Self.reset, to: ["bob@example.com"])
        func ids(_ query: String) -> [String] {
            let encoded = URLEncoding.queryComponent(query)
            return h.request(.get, "/api/v1/search?query=\(encoded)").json?["messages"]?.arrayValue?.compactMap { $0["ID"]?.stringValue } ?? ["error"]
        }
        #expect(ids("123456") == [welcome])
        #expect(ids(#""reset your""#) == [reset])
        #expect(ids("to:bob@example.com") == [reset])
        #expect(ids("from:ada") == [welcome])
        #expect(ids("cc:carol") == [welcome])
        #expect(ids("subject:password") == [reset])
        #expect(ids("message-id:reset-1@example.com") == [reset])
        #expect(ids("tag:signup") == [welcome])
        #expect(ids("has:attachment") == [welcome])
        #expect(ids("is:unread") == [reset, welcome])
        #expect(ids("-to:bob") == [welcome])
        #expect(ids("!has:attachment") == [reset])
        #expect(ids("after:2026-12-02 before:2026-12-04") == [reset, welcome])
        #expect(ids("before:2026-12-02") == [])
        #expect(h.request(.get, "/api/v1/search?query=before:soon").status == 400)
        #expect(h.request(.get, "/api/v1/search").status == 400)
        let search = try #require(h.request(.get, "/api/v1/search?query=example.com").json)
        #expect(search["messages_count"] == 2 && search["total"] == 2)

        #expect(h.request(.delete, "/api/v1/search?query=to:bob").text == "ok")
        #expect(ids("example.com") == [welcome])
        #expect(h.request(.delete, "/api/v1/messages", json: ["IDs": [.string(welcome)]]).status == 200)
        #expect(h.request(.get, "/api/v1/messages").json?["total"] == 0)
        _ = try h.deliver(Self.reset, to: ["bob@example.com"])
        #expect(h.request(.delete, "/api/v1/messages").text == "ok")
        #expect(h.request(.get, "/api/v1/messages").json?["total"] == 0)
    }

    @Test func tags() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let welcome = try h.deliver(Self.welcome, to: ["alice@example.com"])
        let reset = try h.deliver(Self.reset, to: ["bob@example.com"])
        #expect(h.request(.get, "/api/v1/tags").json == ["otp", "Signup"])
        #expect(h.request(.put, "/api/v1/tags", json: ["Tags": ["Password", "otp"], "IDs": [.string(reset)]]).text == "ok")
        #expect(h.request(.get, "/api/v1/tags").json == ["otp", "Password", "Signup"])
        #expect(h.request(.get, "/api/v1/message/\(reset)").json?["Tags"] == ["Password", "otp"])
        #expect(h.request(.put, "/api/v1/tags/otp", json: ["Name": "OTP"]).status == 200)
        #expect(h.request(.get, "/api/v1/message/\(welcome)").json?["Tags"] == ["Signup", "OTP"])
        #expect(h.request(.delete, "/api/v1/tags/Password").status == 200)
        #expect(h.request(.get, "/api/v1/tags").json == ["OTP", "Signup"])
        #expect(h.request(.put, "/api/v1/tags", json: ["Tags": [], "IDs": [.string(welcome)]]).status == 200)
        #expect(h.request(.get, "/api/v1/message/\(welcome)").json?["Tags"] == [])
        #expect(h.request(.put, "/api/v1/tags", json: ["IDs": [.string(welcome)]]).status == 400)
        #expect(h.request(.put, "/api/v1/tags", json: ["Tags": ["x"]]).status == 400)
    }

    @Test func sendBuildsAMessageThroughTheInbox() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let sent = h.request(.post, "/api/v1/send", json: [
            "From": ["Email": "app@example.com", "Name": "The Äpp"],
            "To": [["Email": "alice@example.com", "Name": "Alice"]],
            "Cc": [["Email": "carol@example.com"]],
            "Bcc": ["hidden@example.com"],
            "Subject": "Your sign-in code",
            "Text": "Your code is 424242",
            "HTML": "<p>Your code is <b>424242</b></p>",
            "Headers": ["X-Request": "r1"],
            "Tags": ["api"],
            "Attachments": [["Content": .string(MIMEComposition.base64(Array("hello".utf8))), "Filename": "hello.txt"]],
        ])
        #expect(sent.status == 200)
        let id = try #require(sent.json?["ID"]?.stringValue)
        let m = try #require(h.request(.get, "/api/v1/message/\(id)").json)
        #expect(m["From"] == ["Name": "The Äpp", "Address": "app@example.com"])
        #expect(m["Subject"] == "Your sign-in code" && m["Codes"] == ["424242"] && m["Tags"] == ["api"] && m["Source"] == "mailpit")
        #expect(m["Bcc"] == [["Name": "", "Address": "hidden@example.com"]])
        #expect(m["HTML"]?.stringValue?.contains("<b>424242</b>") == true)
        #expect(m["Attachments"]?.arrayValue?.map { $0["FileName"]?.stringValue } == ["hello.txt"])
        #expect(h.request(.get, "/api/v1/message/\(id)/headers").json?["X-Request"] == ["r1"])
        #expect(h.request(.get, "/api/v1/message/\(id)/headers").json?["X-Understudy-Source"] == ["mailpit"])

        let missingFrom = h.request(.post, "/api/v1/send", json: ["To": [["Email": "a@example.com"]]])
        #expect(missingFrom.status == 400 && missingFrom.json?["Error"]?.stringValue?.contains("From") == true)
        #expect(h.request(.post, "/api/v1/send", json: ["From": ["Email": "a@example.com"]]).status == 400)
        #expect(h.request(.post, "/api/v1/send", json: ["From": ["Email": "nope"], "To": [["Email": "a@example.com"]]]).status == 400)
        #expect(h.request(.post, "/api/v1/send").status == 400)
    }

    @Test func infoWebUIAndHealth() throws {
        let h = try RouteHarness()
        defer { h.close() }
        _ = try h.deliver(Self.welcome, to: ["alice@example.com"])
        let info = try #require(h.request(.get, "/api/v1/info").json)
        #expect(info["Version"] == "understudy test" && info["Messages"] == 1 && info["Unread"] == 1)
        #expect(info["Tags"] == ["otp": 1, "Signup": 1] && info["RuntimeStats"]?["Uptime"] != nil)
        #expect(h.request(.get, "/api/v1/webui").json?["MessageRelay"]?["Enabled"] == false)
        #expect(h.request(.get, "/livez").status == 200 && h.request(.get, "/readyz").text == "ok")
    }
}

/// While the index cannot be written, Mailpit's routes answer 503 at once (as `/api` does), never
/// a list that misses a message already accepted, and `/readyz` says the server is not ready.
@Suite struct MailpitUnavailableTests {
    @Test func aFailingIndexAnswers503() throws {
        let h = try RouteHarness()
        defer { h.close() }
        h.inbox.store.failIndexWrites(errno: 28)  // ENOSPC
        h.inbox.accept(raw: Array("To: a@example.com\r\nSubject: s\r\n\r\nb\r\n".utf8), envelopeFrom: "", envelopeTo: ["a@example.com"]) { _ in }
        // The request waits for the writer, whose attempt fails: 503, not a list without the message.
        let list = h.request(.get, "/api/v1/messages")
        let deadline = ContinuousClock.now + .seconds(30)
        #expect(list.status == 503 && list.json?["error"] == "storage_unavailable" && list.header("Retry-After") == "1")
        #expect(h.request(.get, "/readyz").status == 503)
        #expect(h.request(.get, "/livez").status == 200)
        h.inbox.store.failIndexWrites(errno: 0)
        var recovered = h.request(.get, "/api/v1/messages")
        while recovered.status != 200, ContinuousClock.now < deadline { recovered = h.request(.get, "/api/v1/messages") }
        #expect(recovered.json?["total"] == 1)
    }
}
