import Testing
import UnderstudyHTTP
import UnderstudyJSON
import UnderstudyMIME
@testable import UnderstudyStore
@testable import UnderstudyMailAPIs

@Suite struct ResendTests {
    static let auth = [("Authorization", "Bearer re_test_123")]

    @Test func sendsAndBatchesAsResendAnswers() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let sent = h.request(.post, "/resend/emails", json: [
            "from": "Acme <onboarding@acme.dev>", "to": ["alice@example.com"], "cc": "carol@example.com",
            "subject": "Your code", "html": "<p>Your verification code is <b>918273</b></p>", "reply_to": "help@acme.dev",
            "headers": ["X-Entity-Ref-ID": "123", "X-Understudy-Source": "smtp"], "tags": [["name": "category", "value": "otp"]],
            "attachments": [["filename": "a.txt", "content": .array(Array("hi".utf8).map { .integer(Int64($0)) })]],
        ], headers: Self.auth)
        #expect(sent.status == 200)
        let id = try #require(sent.json?["id"]?.stringValue)
        #expect(id.count == 36 && sent.json?.objectValue?.keys == ["id"])
        let stored = try #require(try h.newest())
        #expect(stored.summary.codes == ["918273"] && stored.summary.source == "resend")
        #expect(stored.summary.from == "onboarding@acme.dev" && stored.summary.fromName == "Acme")
        #expect(stored.summary.envelopeTo == ["alice@example.com", "carol@example.com"] && stored.summary.tags == ["category=otp"])
        #expect(stored.summary.messageID == "\(id)@resend.understudy.localhost")
        #expect(stored.raw.contains("X-Entity-Ref-ID: 123") && stored.raw.contains("X-Understudy-Source: resend"))
        #expect(!stored.raw.contains("X-Understudy-Source: smtp"))
        let mime = MIMEMessage(parsing: Array(stored.raw.utf8))
        #expect(mime.attachments.first?.bytes == Array("hi".utf8) && mime.replyTo.first?.address == "help@acme.dev")

        let batch = h.request(.post, "/resend/emails/batch", json: [
            ["from": "a@acme.dev", "to": "x@example.com", "subject": "One", "text": "1"],
            ["from": "a@acme.dev", "to": "y@example.com", "subject": "Two", "text": "2"],
        ], headers: Self.auth)
        #expect(batch.status == 200 && batch.json?["data"]?.arrayValue?.count == 2)
        #expect(try h.count() == 3)
    }

    @Test func refusesAsResendDoes() throws {
        let h = try RouteHarness(apiKey: "re_right")
        defer { h.close() }
        let good: JSONValue = ["from": "a@acme.dev", "to": "x@example.com", "subject": "S", "text": "t"]
        let missing = h.request(.post, "/resend/emails", json: good)
        #expect(missing.status == 401 && missing.json?["name"] == "missing_api_key" && missing.json?["statusCode"] == 401)
        let wrong = h.request(.post, "/resend/emails", json: good, headers: [("Authorization", "Bearer re_wrong")])
        #expect(wrong.status == 403 && wrong.json?["name"] == "invalid_api_key")
        let right = [("Authorization", "Bearer re_right")]
        #expect(h.request(.post, "/resend/emails", json: good, headers: right).status == 200)
        for (field, name) in [("from", "missing_required_field"), ("to", "missing_required_field"), ("subject", "missing_required_field")] {
            var body = good.objectValue!
            body[field] = nil
            let r = h.request(.post, "/resend/emails", json: .object(body), headers: right)
            #expect(r.status == 422 && r.json?["name"]?.stringValue == name && r.json?["message"] == .string("Missing `\(field)` field."))
        }
        var bad = good.objectValue!
        bad["from"] = "not an address"
        #expect(h.request(.post, "/resend/emails", json: .object(bad), headers: right).json?["name"] == "validation_error")
        #expect(try h.count() == 1)
    }
}

@Suite struct SendGridTests {
    static let auth = [("Authorization", "Bearer SG.test")]

    @Test func eachPersonalizationIsAMessageAndTemplateDataIsKept() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let r = h.request(.post, "/sendgrid/v3/mail/send", json: [
            "personalizations": [
                ["to": [["email": "alice@example.com", "name": "Alice"]], "substitutions": ["-code-": "123123"]],
                ["to": [["email": "bob@example.com"]], "bcc": [["email": "audit@example.com"]], "subject": "For Bob",
                 "substitutions": ["-code-": "456456"]],
            ],
            "from": ["email": "noreply@acme.dev", "name": "Acme"], "subject": "Your code",
            "content": [["type": "text/plain", "value": "Your code is -code-"]], "categories": ["otp"],
        ], headers: Self.auth)
        #expect(r.status == 202 && r.response.body.isEmpty)
        let messageID = try #require(r.header("X-Message-Id"))
        #expect(messageID.count == 22)
        let bob = try #require(try h.newest())
        #expect(bob.summary.codes == ["456456"] && bob.summary.subject == "For Bob" && bob.summary.source == "sendgrid")
        #expect(bob.summary.envelopeTo == ["bob@example.com", "audit@example.com"] && bob.summary.tags == ["otp"])
        #expect(try h.count() == 2)

        let template = h.request(.post, "/sendgrid/v3/mail/send", json: [
            "personalizations": [["to": [["email": "carol@example.com"]], "dynamic_template_data": ["code": "777111", "name": "Carol"]]],
            "from": ["email": "noreply@acme.dev"], "template_id": "d-123",
        ], headers: Self.auth)
        #expect(template.status == 202)
        let carol = try #require(try h.newest())
        #expect(carol.message.text?.contains(#""code":"777111""#) == true)
        let mime = MIMEMessage(parsing: Array(carol.raw.utf8))
        #expect(mime.attachments.first?.filename == "dynamic_template_data.json")
        #expect(mime.headers["X-SendGrid-Template-Id"] == "d-123")
    }

    @Test func refusesAsSendGridDoes() throws {
        let h = try RouteHarness(apiKey: "SG.right")
        defer { h.close() }
        let good: JSONValue = ["personalizations": [["to": [["email": "a@example.com"]]]], "from": ["email": "n@acme.dev"],
                               "subject": "S", "content": [["type": "text/html", "value": "<p>x</p>"]]]
        let missing = h.request(.post, "/sendgrid/v3/mail/send", json: good)
        #expect(missing.status == 401 && missing.json?["errors"]?[0]?["message"] == "authorization required")
        #expect(h.request(.post, "/sendgrid/v3/mail/send", json: good, headers: [("Authorization", "Bearer SG.wrong")]).status == 401)
        let right = [("Authorization", "Bearer SG.right")]
        #expect(h.request(.post, "/sendgrid/v3/mail/send", json: good, headers: right).status == 202)
        for field in ["from", "subject", "content", "personalizations"] {
            var body = good.objectValue!
            body[field] = nil
            let r = h.request(.post, "/sendgrid/v3/mail/send", json: .object(body), headers: right)
            #expect(r.status == 400 && r.json?["errors"]?[0]?["field"]?.stringValue == field, "\(field): \(r.text)")
        }
        var noTo = good.objectValue!
        noTo["personalizations"] = [["cc": [["email": "c@example.com"]]]]
        #expect(h.request(.post, "/sendgrid/v3/mail/send", json: .object(noTo), headers: right).json?["errors"]?[0]?["field"] == "personalizations.0.to")
        #expect(try h.count() == 1)
    }
}

@Suite struct PostmarkTests {
    static let auth = [("X-Postmark-Server-Token", "server-token")]

    @Test func sendsBatchesAndTemplates() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let r = h.request(.post, "/postmark/email", json: [
            "From": "Acme <sender@acme.dev>", "To": "alice@example.com, Bob <bob@example.com>", "Subject": "Reset",
            "TextBody": "Reset: https://app.example.com/reset-password?token=abc", "Tag": "reset",
            "Headers": [["Name": "X-Ref", "Value": "9"]], "MessageStream": "outbound",
        ], headers: Self.auth)
        #expect(r.status == 200 && r.json?["ErrorCode"] == 0 && r.json?["Message"] == "OK")
        #expect(r.json?["To"] == "alice@example.com, Bob <bob@example.com>" && r.json?["MessageID"]?.stringValue?.count == 36)
        #expect(r.json?["SubmittedAt"]?.stringValue != nil)
        let stored = try #require(try h.newest())
        #expect(stored.summary.envelopeTo == ["alice@example.com", "bob@example.com"] && stored.summary.tags == ["reset"])
        #expect(stored.summary.source == "postmark" && stored.message.linksJSON.contains("reset-password"))

        let batch = h.request(.post, "/postmark/email/batch", json: [
            ["From": "s@acme.dev", "To": "x@example.com", "Subject": "A", "TextBody": "a"],
            ["From": "", "To": "y@example.com", "Subject": "B", "TextBody": "b"],
        ], headers: Self.auth)
        #expect(batch.status == 200 && batch.json?[0]?["ErrorCode"] == 0 && batch.json?[1]?["ErrorCode"] == 300)
        #expect(try h.count() == 2)

        let template = h.request(.post, "/postmark/email/withTemplate/", json: [
            "From": "s@acme.dev", "To": "t@example.com", "TemplateAlias": "code", "TemplateModel": ["code": "606060"],
        ], headers: Self.auth)
        #expect(template.status == 200)
        #expect(try h.newest()?.summary.codes == ["606060"])
        #expect(h.request(.post, "/postmark/email/withTemplate", json: ["From": "s@acme.dev", "To": "t@example.com"],
                          headers: Self.auth).json?["ErrorCode"] == 1101)
    }

    @Test func refusesAsPostmarkDoes() throws {
        let h = try RouteHarness(apiKey: "right")
        defer { h.close() }
        let good: JSONValue = ["From": "s@acme.dev", "To": "x@example.com", "Subject": "A", "TextBody": "a"]
        let missing = h.request(.post, "/postmark/email", json: good)
        #expect(missing.status == 401 && missing.json?["ErrorCode"] == 10)
        #expect(h.request(.post, "/postmark/email", json: good, headers: [("X-Postmark-Server-Token", "wrong")]).status == 401)
        let right = [("X-Postmark-Server-Token", "right")]
        var noFrom = good.objectValue!
        noFrom["From"] = nil
        let r = h.request(.post, "/postmark/email", json: .object(noFrom), headers: right)
        #expect(r.status == 422 && r.json?["ErrorCode"] == 300 && r.json?["Message"] == "Invalid 'From' address: ''.")
        var noTo = good.objectValue!
        noTo["To"] = nil
        #expect(h.request(.post, "/postmark/email", json: .object(noTo), headers: right).json?["Message"] == "Zero recipients specified")
        var noBody = good.objectValue!
        noBody["TextBody"] = nil
        #expect(h.request(.post, "/postmark/email", json: .object(noBody), headers: right).json?["ErrorCode"] == 300)
        let invalid = h.request(.post, "/postmark/email", headers: right + [("Content-Type", "application/json")], body: Array("{".utf8))
        #expect(invalid.status == 422 && invalid.json?["ErrorCode"] == 402)
        #expect(try h.count() == 0)
    }
}

@Suite struct MailgunTests {
    static let auth = [("Authorization", "Basic " + MIMEComposition.base64(Array("api:key-123".utf8)))]

    static func form(_ fields: [(String, String)], files: [(String, String, String)] = []) -> (String, [UInt8]) {
        var body = ""
        for (name, value) in fields { body += "--B\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
        for (name, filename, content) in files {
            body += "--B\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: text/plain\r\n\r\n\(content)\r\n"
        }
        return ("multipart/form-data; boundary=B", Array((body + "--B--\r\n").utf8))
    }

    @Test func sendsAMultipartForm() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let (type, body) = Self.form([("from", "Acme <postmaster@mg.acme.dev>"), ("to", "alice@example.com"), ("to", "bob@example.com"),
                                      ("subject", "Hello"), ("text", "Your login code: 314159"), ("o:tag", "login"),
                                      ("h:X-Trace", "t1"), ("v:user", "42")], files: [("attachment", "notes.txt", "file body")])
        let r = h.request(.post, "/mailgun/v3/mg.acme.dev/messages", headers: Self.auth + [("Content-Type", type)], body: body)
        #expect(r.status == 200 && r.json?["message"] == "Queued. Thank you.")
        let id = try #require(r.json?["id"]?.stringValue)
        #expect(id.hasPrefix("<") && id.hasSuffix("@mg.acme.dev>"))
        let stored = try #require(try h.newest())
        #expect(stored.summary.codes == ["314159"] && stored.summary.envelopeTo == ["alice@example.com", "bob@example.com"])
        #expect(stored.summary.messageID == String(id.dropFirst().dropLast()) && stored.summary.tags == ["login"])
        #expect(stored.summary.source == "mailgun" && stored.raw.contains("X-Trace: t1") && stored.raw.contains(#"X-Mailgun-Variables: {"user":"42"}"#))
        #expect(MIMEMessage(parsing: Array(stored.raw.utf8)).attachments.first?.filename == "notes.txt")

        // urlencoded works too, and so does a whole MIME message.
        let encoded = "from=a%40acme.dev&to=c%40example.com&subject=S&html=%3Cp%3Ehi%3C%2Fp%3E"
        #expect(h.request(.post, "/mailgun/v3/acme.dev/messages", headers: Self.auth + [("Content-Type", "application/x-www-form-urlencoded")],
                          body: Array(encoded.utf8)).status == 200)
        let (mimeType, mimeBody) = Self.form([("to", "raw@example.com")], files: [("message", "m.eml", "From: r@acme.dev\r\nSubject: Raw one\r\n\r\nCode 271828")])
        #expect(h.request(.post, "/mailgun/v3/acme.dev/messages.mime", headers: Self.auth + [("Content-Type", mimeType)], body: mimeBody).status == 200)
        #expect(try h.newest()?.summary.subject == "Raw one")
        #expect(try h.newest()?.summary.source == "mailgun")
    }

    @Test func refusesAsMailgunDoes() throws {
        let h = try RouteHarness(apiKey: "key-123")
        defer { h.close() }
        let (type, body) = Self.form([("from", "a@acme.dev"), ("to", "x@example.com"), ("subject", "S"), ("text", "t")])
        let missing = h.request(.post, "/mailgun/v3/acme.dev/messages", headers: [("Content-Type", type)], body: body)
        #expect(missing.status == 401 && missing.text == "Forbidden")
        let wrong = [("Authorization", "Basic " + MIMEComposition.base64(Array("api:nope".utf8)))]
        #expect(h.request(.post, "/mailgun/v3/acme.dev/messages", headers: wrong + [("Content-Type", type)], body: body).status == 401)
        for (field, message) in [("from", "'from' parameter is missing"), ("to", "'to' parameter is missing"),
                                 ("subject", "'subject' parameter is missing"),
                                 ("text", "Need at least one of 'text', 'html' or 'template' parameters specified")] {
            let fields = [("from", "a@acme.dev"), ("to", "x@example.com"), ("subject", "S"), ("text", "t")].filter { $0.0 != field }
            let (t, b) = Self.form(fields)
            let r = h.request(.post, "/mailgun/v3/acme.dev/messages", headers: Self.auth + [("Content-Type", t)], body: b)
            #expect(r.status == 400 && r.json?["message"] == .string(message))
        }
        let broken = h.request(.post, "/mailgun/v3/acme.dev/messages", headers: Self.auth + [("Content-Type", "multipart/form-data; boundary=B")],
                               body: Array("--B\r\nno end".utf8))
        #expect(broken.status == 400 && broken.json?["message"] != nil)
        #expect(try h.count() == 0)
    }
}

@Suite struct SESTests {
    static let auth = [("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261203/us-east-1/ses/aws4_request, SignedHeaders=host, Signature=abc")]

    @Test func sendsSimpleAndRawContent() throws {
        let h = try RouteHarness()
        defer { h.close() }
        let simple = h.request(.post, "/ses/v2/email/outbound-emails", json: [
            "FromEmailAddress": "Acme <no-reply@acme.dev>",
            "Destination": ["ToAddresses": ["alice@example.com"], "BccAddresses": ["audit@example.com"]],
            "Content": ["Simple": ["Subject": ["Data": "Sign in"], "Body": ["Text": ["Data": "Your sign-in code is 112358"]],
                                   "Headers": [["Name": "X-Ref", "Value": "r"]]]],
            "EmailTags": [["Name": "flow", "Value": "login"]],
        ], headers: Self.auth)
        #expect(simple.status == 200 && simple.json?["MessageId"]?.stringValue?.hasPrefix("0100") == true)
        let stored = try #require(try h.newest())
        #expect(stored.summary.codes == ["112358"] && stored.summary.source == "ses" && stored.summary.tags == ["flow=login"])
        #expect(stored.summary.envelopeTo == ["alice@example.com", "audit@example.com"])

        let raw = "From: raw@acme.dev\r\nTo: bob@example.com\r\nSubject: Raw\r\n\r\nCode 161803\r\n"
        let r = h.request(.post, "/ses/v2/email/outbound-emails", json: ["Content": ["Raw": ["Data": .string(MIMEComposition.base64(Array(raw.utf8)))]]],
                          headers: Self.auth)
        #expect(r.status == 200)
        let rawStored = try #require(try h.newest())
        #expect(rawStored.summary.codes == ["161803"] && rawStored.summary.envelopeTo == ["bob@example.com"] && rawStored.summary.source == "ses")
        #expect(rawStored.summary.envelopeFrom == "raw@acme.dev")
    }

    @Test func refusesAsSESDoes() throws {
        let h = try RouteHarness(apiKey: "AKIDEXAMPLE")
        defer { h.close() }
        let good: JSONValue = ["FromEmailAddress": "a@acme.dev", "Destination": ["ToAddresses": ["x@example.com"]],
                               "Content": ["Simple": ["Subject": ["Data": "S"], "Body": ["Html": ["Data": "<p>h</p>"]]]]]
        let missing = h.request(.post, "/ses/v2/email/outbound-emails", json: good)
        #expect(missing.status == 403 && missing.header("x-amzn-ErrorType") == "MissingAuthenticationTokenException")
        let other = [("Authorization", "AWS4-HMAC-SHA256 Credential=OTHER/20261203/us-east-1/ses/aws4_request, Signature=x")]
        #expect(h.request(.post, "/ses/v2/email/outbound-emails", json: good, headers: other).header("x-amzn-ErrorType") == "UnrecognizedClientException")
        #expect(h.request(.post, "/ses/v2/email/outbound-emails", json: good, headers: Self.auth).status == 200)
        var noFrom = good.objectValue!
        noFrom["FromEmailAddress"] = nil
        var noTo = good.objectValue!
        noTo["Destination"] = nil
        var noSubject = good.objectValue!
        noSubject["Content"] = ["Simple": ["Body": ["Text": ["Data": "t"]]]]
        for body in [noFrom, noTo, noSubject] {
            let r = h.request(.post, "/ses/v2/email/outbound-emails", json: .object(body), headers: Self.auth)
            #expect(r.status == 400 && r.header("x-amzn-ErrorType") == "BadRequestException" && r.json?["message"]?.stringValue != nil)
        }
        #expect(try h.count() == 1)
    }
}

/// A store that cannot take the message (a full disk) makes the API answer 503, never a
/// provider success for a message that was not stored.
@Suite struct EmailAPIStorageTests {
    @Test func aFullDiskAnswers503() throws {
        let h = try RouteHarness()
        defer { h.close() }
        h.inbox.store.failLogWrites(errno: 28)  // ENOSPC
        let r = h.request(.post, "/resend/emails", json: ["from": "a@acme.dev", "to": "x@example.com", "subject": "S", "text": "t"],
                          headers: ResendTests.auth)
        #expect(r.status == 503 && r.json?["error"] == "storage_unavailable" && r.header("Retry-After") == "1")
        h.inbox.store.failLogWrites(errno: 0)
        #expect(h.request(.post, "/resend/emails", json: ["from": "a@acme.dev", "to": "x@example.com", "subject": "S", "text": "t"],
                          headers: ResendTests.auth).status == 200)
    }
}
