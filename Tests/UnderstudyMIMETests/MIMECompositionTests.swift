import Testing
@testable import UnderstudyMIME

/// Messages built from HTTP send requests read back, through `MIMEMessage`, as what was asked for.
@Suite struct MIMECompositionTests {
    static func composition() -> MIMEComposition {
        var c = MIMEComposition(date: 1_796_256_000, messageID: "<abc@understudy.localhost>")
        c.from = MIMEAddress(name: "Ünïcode \"Sender\"", address: "app@example.com")
        c.to = [MIMEAddress(name: "Alice", address: "alice@example.com"), MIMEAddress(name: nil, address: "bob@example.com")]
        c.cc = [MIMEAddress(name: "Carol, Inc.", address: "carol@example.com")]
        c.replyTo = [MIMEAddress(name: nil, address: "help@example.com")]
        c.subject = "Ваш код: 424242 — a subject long enough to need more than one encoded word, surely"
        c.text = "Line one\nLine two\r\nYour code is 424242"
        c.html = "<p>Grüße: <b>424242</b> <img src=\"cid:logo\"></p>"
        c.attachments = [
            .init(filename: "report.pdf", contentType: nil, content: [0, 1, 2, 255]),
            .init(filename: "logo.png", contentType: "image/png", content: Array("PNG".utf8), contentID: "logo"),
        ]
        c.headers = [("X-Entity", "42"), ("X-Evil", "a\r\nBcc: victim@example.com"), ("Content-Type", "text/evil"), ("Bad Name", "x")]
        return c
    }

    @Test func readsBackAsWritten() throws {
        let raw = Self.composition().render()
        let m = MIMEMessage(parsing: raw)
        #expect(m.from == [MIMEAddress(name: "Ünïcode \"Sender\"", address: "app@example.com")])
        #expect(m.to.map(\.address) == ["alice@example.com", "bob@example.com"] && m.to.first?.name == "Alice")
        #expect(m.cc == [MIMEAddress(name: "Carol, Inc.", address: "carol@example.com")])
        #expect(m.replyTo.map(\.address) == ["help@example.com"])
        #expect(m.subject == Self.composition().subject)
        #expect(m.messageID?.contains("abc@understudy.localhost") == true)
        #expect(m.date?.secondsSince1970 == 1_796_256_000)
        #expect(m.text?.contains("Line one\r\nLine two\r\nYour code is 424242") == true || m.text?.contains("Line one\nLine two\nYour code is 424242") == true)
        #expect(m.html == "<p>Grüße: <b>424242</b> <img src=\"cid:logo\"></p>")
        #expect(m.attachments.map(\.filename) == ["report.pdf"] && m.attachments.first?.bytes == [0, 1, 2, 255])
        #expect(m.attachments.first?.contentType == "application/pdf")
        #expect(m.inlineParts.first?.contentID?.contains("logo") == true && m.inlineParts.first?.bytes == Array("PNG".utf8))
        #expect(m.headers["X-Entity"] == "42")
    }

    @Test func headerValuesCannotStartNewHeaders() {
        let text = String(decoding: Self.composition().render(), as: UTF8.self)
        let headerBlock = String(text[..<text.firstRange(of: "\r\n\r\n")!.lowerBound])
        #expect(!headerBlock.split(separator: "\r\n").contains { $0.hasPrefix("Bcc:") })
        #expect(!text.contains("text/evil") && !text.contains("Bad Name"))
        #expect(headerBlock.contains("X-Evil: a  Bcc: victim@example.com"))
        // Every line ends in CRLF and none is longer than RFC 5322 allows.
        #expect(!text.replacing("\r\n", with: "").contains("\n"))
        #expect(text.split(separator: "\r\n", omittingEmptySubsequences: false).allSatisfy { $0.utf8.count <= 998 })
    }

    @Test func longHeadersAreFoldedWithinTheLineLimit() {
        var c = MIMEComposition(date: 0, messageID: "x@y")
        c.to = (0..<60).map { MIMEAddress(name: "Recipient Number \($0)", address: "recipient\($0)@example.com") }
        c.subject = String(repeating: "long ", count: 400)
        c.headers = [("X-Long", String(repeating: "v", count: 2000))]
        let raw = c.render()
        #expect(String(decoding: raw, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false).allSatisfy { $0.utf8.count <= 998 })
        let m = MIMEMessage(parsing: raw)
        #expect(m.to.count == 60 && m.to.last?.address == "recipient59@example.com")
        #expect(m.subject == c.subject && m.headers["X-Long"] == String(repeating: "v", count: 2000))
    }

    @Test func aPlainMessageIsOnePart() {
        var c = MIMEComposition(date: 0, messageID: "x@y")
        c.from = MIMEAddress(name: nil, address: "a@example.com")
        c.text = "hello"
        let text = String(decoding: c.render(), as: UTF8.self)
        #expect(text.contains("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nhello\r\n"))
        #expect(text.hasPrefix("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"))
        #expect(MIMEMessage(parsing: c.render()).text == "hello\r\n" || MIMEMessage(parsing: c.render()).text == "hello\n" || MIMEMessage(parsing: c.render()).text == "hello")
    }

    @Test(arguments: [(0, "Thu, 01 Jan 1970 00:00:00 +0000"), (951_782_400, "Tue, 29 Feb 2000 00:00:00 +0000"),
                      (1_796_299_199, "Thu, 03 Dec 2026 11:59:59 +0000"), (-1, "Wed, 31 Dec 1969 23:59:59 +0000")])
    func datesAreRFC5322(_ seconds: Int64, _ expected: String) {
        #expect(MIMEComposition.rfc5322Date(seconds) == expected)
    }

    @Test func base64MatchesRFC4648() {
        for (input, output) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            #expect(MIMEComposition.base64(Array(input.utf8)) == output)
        }
    }
}
